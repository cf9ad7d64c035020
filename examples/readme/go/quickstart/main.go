package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("QuickStart"), nil)

	// Makes a VPC without NAT, a hardened versioned bucket, the S3 Files file system with its
	// mount targets, an access point (/lambda), and a function that sees the bucket's lambda/ prefix at /mnt/s3files.
	cdks3fileslambda.NewS3FilesMountedFunction(stack, jsii.String("Reader"), &cdks3fileslambda.S3FilesMountedFunctionProps{
		Runtime: awslambda.Runtime_NODEJS_24_X(),
		Handler: jsii.String("index.handler"),
		Code: awslambda.Code_FromInline(jsii.String(
			`exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);`)),
	})

	app.Synth(nil)
}
