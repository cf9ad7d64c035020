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

	// Your own function, in another stack, built however you like (run from the folder holding worker/).
	compute := awscdk.NewStack(app, jsii.String("Compute"), nil)
	// Its access point beside it: replacing or removing it is then an ordinary update of this stack.
	reports := cdks3fileslambda.NewS3FilesAccessPoint(compute, jsii.String("Reports"), &cdks3fileslambda.S3FilesAccessPointProps{
		FileSystem: fileSystem, Path: jsii.String("/reports"),
	})
	worker := awslambda.NewFunction(compute, jsii.String("Worker"), &awslambda.FunctionProps{
		Runtime:    awslambda.Runtime_NODEJS_24_X(),
		Handler:    jsii.String("index.handler"),
		Code:       awslambda.Code_FromAsset(jsii.String("worker"), nil),
		Vpc:        vpc,
		VpcSubnets: &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED},
	})
	// One call: the mount, the wait for the mount targets, NFS, scoped grants, MOUNT_PATH.
	cdks3fileslambda.LambdaMount_OnFunction(worker, reports, &cdks3fileslambda.LambdaMountOptions{MountPath: jsii.String("/mnt/reports")})

	app.Synth(nil)
}
