package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Consumer"), &awscdk.StackProps{
		Env: &awscdk.Environment{Account: jsii.String("111111111111"), Region: jsii.String("us-east-1")},
	})
	vpc := awsec2.Vpc_FromVpcAttributes(stack, jsii.String("Vpc"), &awsec2.VpcAttributes{
		VpcId:                       jsii.String("vpc-0123456789abcdef0"),
		AvailabilityZones:           jsii.Strings("us-east-1a", "us-east-1b"),
		IsolatedSubnetIds:           jsii.Strings("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"),
		IsolatedSubnetRouteTableIds: jsii.Strings("rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb"),
	})

	// A file system made elsewhere (another app, the console): what this app needs to know of it.
	fileSystem := cdks3fileslambda.S3FilesFileSystem_FromFileSystemAttributes(stack, jsii.String("Shared"), &cdks3fileslambda.S3FilesFileSystemAttributes{
		FileSystemId:                 jsii.String("fs-0123456789abcdef0"),
		Vpc:                          vpc,
		MountTargetAvailabilityZones: jsii.Strings("us-east-1a", "us-east-1b"),
		// A group the mount targets admit on 2049 (or SecurityGroups: the mount targets' own groups).
		ClientSecurityGroup: awsec2.SecurityGroup_FromSecurityGroupId(stack, jsii.String("Clients"), jsii.String("sg-0123456789abcdef0"), nil),
		Bucket:              awss3.Bucket_FromBucketName(stack, jsii.String("Bucket"), jsii.String("shared-data-bucket")),
	})
	team := cdks3fileslambda.S3FilesAccessPoint_FromAccessPointAttributes(stack, jsii.String("Team"), &cdks3fileslambda.S3FilesAccessPointAttributes{
		FileSystem: fileSystem, AccessPointId: jsii.String("fsap-0123456789abcdef0"),
	})

	reader := awslambda.NewFunction(stack, jsii.String("Reader"), &awslambda.FunctionProps{
		Runtime: awslambda.Runtime_NODEJS_24_X(),
		Handler: jsii.String("index.handler"),
		Code:    awslambda.Code_FromInline(jsii.String(`exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);`)),
		Vpc:     vpc,
	})
	cdks3fileslambda.LambdaMount_OnFunction(reader, team, &cdks3fileslambda.LambdaMountOptions{ReadOnly: jsii.Bool(true)})

	app.Synth(nil)
}
