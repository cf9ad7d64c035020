// What a Go user meets when the library refuses a value, run against the generated Go module (the
// Go side of test/bindings/errors.py): the library's synth-time errors reach Go as a panic carrying
// its message, which spells each prop as a Go field; warnings too. Exits non-zero on a miss.
package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func fresh() (awscdk.Stack, awsec2.Vpc) {
	stack := awscdk.NewStack(awscdk.NewApp(nil), jsii.String("Errors"), nil)
	vpc := awsec2.NewVpc(stack, jsii.String("Vpc"), &awsec2.VpcProps{
		NatGateways:         jsii.Number(0),
		SubnetConfiguration: &[]*awsec2.SubnetConfiguration{{Name: jsii.String("I"), SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED}},
	})
	return stack, vpc
}

func refused(build func(), pattern string) {
	message := func() (message string) {
		defer func() {
			if r := recover(); r != nil {
				message = fmt.Sprint(r)
			}
		}()
		build()
		return ""
	}()
	if message == "" {
		fail("accepted, expected /%s/", pattern)
	}
	if !regexp.MustCompile("(?s)" + pattern).MatchString(message) {
		fail("expected /%s/ in:\n%s", pattern, message)
	}
	fmt.Println("ok: panic:", strings.SplitN(message, "\n", 2)[0])
}

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	defer jsii.Close()
	code := awslambda.Code_FromInline(jsii.String("exports.handler = async () => 1;"))

	// 1. A library error on a nested option: the fields that lead to the value, as Go writes them.
	stack, vpc := fresh()
	refused(func() {
		cdks3fileslambda.NewS3FilesMountedFunction(stack, jsii.String("Fn"), &cdks3fileslambda.S3FilesMountedFunctionProps{
			Vpc: vpc, Runtime: awslambda.Runtime_NODEJS_24_X(), Handler: jsii.String("index.handler"), Code: code,
			AccessPointOptions: &cdks3fileslambda.S3FilesAccessPointOptions{
				Path: jsii.String("/app"), PosixUser: &cdks3fileslambda.PosixUser{Uid: jsii.Number(-1), Gid: jsii.Number(1)},
			},
		})
	}, `invalid accessPointOptions\.posixUser\.uid -1: .*Fix: .*Go: AccessPointOptions\.PosixUser\.Uid\.\)`)

	// 2. A library error naming a static call: Go's package-level function.
	stack, vpc = fresh()
	refused(func() {
		theirs := cdks3fileslambda.S3FilesFileSystem_FromFileSystemAttributes(stack, jsii.String("Theirs"), &cdks3fileslambda.S3FilesFileSystemAttributes{
			FileSystemId: jsii.String("fs-0123456789abcdef0"), Vpc: vpc,
		})
		ap := cdks3fileslambda.S3FilesAccessPoint_FromAccessPointAttributes(stack, jsii.String("Ap"), &cdks3fileslambda.S3FilesAccessPointAttributes{
			FileSystem: theirs, AccessPointId: jsii.String("fsap-0123456789abcdef0"),
		})
		fn := awslambda.NewFunction(stack, jsii.String("Reader"), &awslambda.FunctionProps{
			Vpc: vpc, Runtime: awslambda.Runtime_NODEJS_24_X(), Handler: jsii.String("index.handler"), Code: code,
		})
		cdks3fileslambda.LambdaMount_OnFunction(fn, ap, nil)
	}, `invalid fileSystem "Errors/Theirs": mounting it needs what it was imported without: .*Go: .*S3FilesFileSystem_FromFileSystemAttributes\(\)`)

	// 3. A warning, as `cdk synth` prints it: in Go's spelling as well.
	stack, vpc = fresh()
	fs := cdks3fileslambda.NewS3FilesFileSystem(stack, jsii.String("Fs"), &cdks3fileslambda.S3FilesFileSystemProps{Vpc: vpc})
	fn := awslambda.NewFunction(stack, jsii.String("Reader"), &awslambda.FunctionProps{
		Vpc: vpc, Runtime: awslambda.Runtime_NODEJS_24_X(), Handler: jsii.String("index.handler"), Code: code,
	})
	ap := fs.AddAccessPoint(jsii.String("Ap"), &cdks3fileslambda.S3FilesAccessPointOptions{Path: jsii.String("/app")})
	cdks3fileslambda.LambdaMount_OnFunction(fn, ap, &cdks3fileslambda.LambdaMountOptions{ReadOnly: jsii.Bool(true), RootAccess: jsii.Bool(true)})
	label := "Go: ReadOnly, RootAccess."
	found := []string{}
	for _, c := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		for _, m := range *c.Node().Metadata() {
			data := fmt.Sprint(m.Data)
			if *m.Type == "aws:cdk:warning" && strings.Contains(data, label) {
				found = append(found, data)
			}
		}
	}
	if len(found) != 1 {
		fail("expected one warning naming %q, found %v", label, found)
	}
	fmt.Println("ok: warning:", found[0])

	// 4. The client actions as constants: package-level functions returning the IAM action names.
	for _, a := range []struct {
		got  *string
		want string
	}{
		{cdks3fileslambda.S3FilesClientAction_MOUNT(), "s3files:ClientMount"},
		{cdks3fileslambda.S3FilesClientAction_WRITE(), "s3files:ClientWrite"},
		{cdks3fileslambda.S3FilesClientAction_ROOT_ACCESS(), "s3files:ClientRootAccess"},
	} {
		if a.got == nil || *a.got != a.want {
			fail("S3FilesClientAction constant is %v, expected %q", a.got, a.want)
		}
		fmt.Println("ok: S3FilesClientAction", *a.got)
	}
}
