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
	storage := awscdk.NewStack(app, jsii.String("Storage"), nil)
	vpc := awsec2.NewVpc(storage, jsii.String("Vpc"), &awsec2.VpcProps{
		NatGateways: jsii.Number(0),
		SubnetConfiguration: &[]*awsec2.SubnetConfiguration{
			{Name: jsii.String("Isolated"), SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED},
		},
	})
	fileSystem := cdks3fileslambda.NewS3FilesFileSystem(storage, jsii.String("Files"), &cdks3fileslambda.S3FilesFileSystemProps{Vpc: vpc})

	compute := awscdk.NewStack(app, jsii.String("Compute"), nil)
	fn := func(props *cdks3fileslambda.S3FilesMountedFunctionProps) *cdks3fileslambda.S3FilesMountedFunctionProps {
		props.Runtime = awslambda.Runtime_NODEJS_24_X()
		props.Handler = jsii.String("index.handler")
		props.Code = awslambda.Code_FromInline(jsii.String("exports.handler = async () => ({})"))
		return props
	}
	shared := cdks3fileslambda.NewS3FilesAccessPoint(compute, jsii.String("Shared"), &cdks3fileslambda.S3FilesAccessPointProps{
		FileSystem: fileSystem, Path: jsii.String("/shared"),
	})
	cdks3fileslambda.NewS3FilesMountedFunction(compute, jsii.String("Writer"), fn(&cdks3fileslambda.S3FilesMountedFunctionProps{AccessPoint: shared}))
	cdks3fileslambda.NewS3FilesMountedFunction(compute, jsii.String("Reader"), fn(&cdks3fileslambda.S3FilesMountedFunctionProps{AccessPoint: shared, ReadOnly: jsii.Bool(true)}))
	// Its own access point, beside it.
	cdks3fileslambda.NewS3FilesMountedFunction(compute, jsii.String("Own"), fn(&cdks3fileslambda.S3FilesMountedFunctionProps{S3FileSystem: fileSystem}))

	app.Synth(nil)
}
