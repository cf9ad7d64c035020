package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Sharing"), nil)
	vpc := awsec2.NewVpc(stack, jsii.String("Vpc"), &awsec2.VpcProps{
		NatGateways: jsii.Number(0),
		SubnetConfiguration: &[]*awsec2.SubnetConfiguration{
			{Name: jsii.String("Isolated"), SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED},
		},
		GatewayEndpoints: &map[string]*awsec2.GatewayVpcEndpointOptions{
			"S3": {Service: awsec2.GatewayVpcEndpointAwsService_S3()},
		},
	})
	code := awslambda.Code_FromInline(jsii.String(`exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);`))

	// One file system over the bucket's docs/ prefix, one access point: /app, owned by 1000:1000.
	fileSystem := cdks3fileslambda.NewS3FilesFileSystem(stack, jsii.String("Docs"), &cdks3fileslambda.S3FilesFileSystemProps{
		Vpc: vpc, Prefix: jsii.String("docs/"),
	})
	appDir := fileSystem.AddAccessPoint(jsii.String("App"), &cdks3fileslambda.S3FilesAccessPointOptions{
		Path: jsii.String("/app"), PosixUser: &cdks3fileslambda.PosixUser{Uid: jsii.Number(1000), Gid: jsii.Number(1000)},
	})

	cdks3fileslambda.NewS3FilesMountedFunction(stack, jsii.String("Writer"), &cdks3fileslambda.S3FilesMountedFunctionProps{
		Runtime: awslambda.Runtime_NODEJS_24_X(), Handler: jsii.String("index.handler"), Code: code,
		S3FileSystem: fileSystem, AccessPoint: appDir,
	})
	cdks3fileslambda.NewS3FilesMountedFunction(stack, jsii.String("Reader"), &cdks3fileslambda.S3FilesMountedFunctionProps{
		Runtime: awslambda.Runtime_NODEJS_24_X(), Handler: jsii.String("index.handler"), Code: code,
		S3FileSystem: fileSystem, AccessPoint: appDir, ReadOnly: jsii.Bool(true),
	})
	// Root-owned (S3-born) entries: uid 0 with ClientRootAccess, assumed as in EFS (uid 0 draws a warning).
	cdks3fileslambda.NewS3FilesMountedFunction(stack, jsii.String("Janitor"), &cdks3fileslambda.S3FilesMountedFunctionProps{
		Runtime: awslambda.Runtime_NODEJS_24_X(), Handler: jsii.String("index.handler"), Code: code,
		S3FileSystem: fileSystem,
		AccessPointOptions: &cdks3fileslambda.S3FilesAccessPointOptions{
			Path: jsii.String("/app"), PosixUser: &cdks3fileslambda.PosixUser{Uid: jsii.Number(0), Gid: jsii.Number(0)},
		},
		RootAccess: jsii.Bool(true),
	})

	app.Synth(nil)
}
