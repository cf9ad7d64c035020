package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Monitored"), nil)
	vpc := awsec2.NewVpc(stack, jsii.String("Vpc"), &awsec2.VpcProps{
		NatGateways: jsii.Number(0),
		SubnetConfiguration: &[]*awsec2.SubnetConfiguration{
			{Name: jsii.String("Isolated"), SubnetType: awsec2.SubnetType_PRIVATE_ISOLATED},
		},
	})
	fileSystem := cdks3fileslambda.NewS3FilesFileSystem(stack, jsii.String("Files"), &cdks3fileslambda.S3FilesFileSystemProps{Vpc: vpc})

	// Six alarms (export/import failures, lost+found, pending exports, export age, connections)
	// and a dashboard; every threshold is a prop with a documented default.
	cdks3fileslambda.NewS3FilesMonitoring(stack, jsii.String("Monitoring"), &cdks3fileslambda.S3FilesMonitoringProps{
		FileSystem:         fileSystem,
		AlarmTopic:         awssns.NewTopic(stack, jsii.String("Alerts"), nil),
		ExportAgeThreshold: awscdk.Duration_Minutes(jsii.Number(10)),
	})

	app.Synth(nil)
}
