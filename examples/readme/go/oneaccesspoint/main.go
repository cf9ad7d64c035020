package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("PinnedClient"), nil)
	vpc := awsec2.NewVpc(stack, jsii.String("Vpc"), &awsec2.VpcProps{
		MaxAzs:      jsii.Number(2),
		NatGateways: jsii.Number(0),
		SubnetConfiguration: &[]*awsec2.SubnetConfiguration{
			{Name: jsii.String("isolated"), SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED},
		},
	})
	fileSystem := cdks3fileslambda.NewS3FilesFileSystem(stack, jsii.String("Files"), &cdks3fileslambda.S3FilesFileSystemProps{Vpc: vpc})
	reports := fileSystem.AddAccessPoint(jsii.String("Reports"), &cdks3fileslambda.S3FilesAccessPointOptions{Path: jsii.String("/reports")})
	reporter := cdks3fileslambda.NewS3FilesMountedFunction(stack, jsii.String("Reporter"), &cdks3fileslambda.S3FilesMountedFunctionProps{
		Runtime:      awslambda.Runtime_NODEJS_24_X(),
		Handler:      jsii.String("index.handler"),
		Code:         awslambda.Code_FromInline(jsii.String("exports.handler = async () => ({})")),
		S3FileSystem: fileSystem,
		AccessPoint:  reports,
	})

	// The Deny half of the documented per-role pair (the library's identity grant is the Allow):
	// whatever else this role is granted later, it mounts only through /reports.
	fileSystem.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("ReporterOnlyThroughReports"),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewArnPrincipal(reporter.Role().RoleArn())},
		Actions:    jsii.Strings("s3files:ClientMount", "s3files:ClientWrite", "s3files:ClientRootAccess"),
		Resources:  jsii.Strings(*fileSystem.FileSystemArn()),
		Conditions: &map[string]interface{}{
			"StringNotEquals": map[string]interface{}{"s3files:AccessPointArn": reports.AccessPointArn()},
		},
	}))

	app.Synth(nil)
}
