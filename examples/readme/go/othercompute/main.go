package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsecs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Pipeline"), nil)
	// Private subnets with one NAT gateway: the tasks pull their image from public ECR and the
	// instance installs amazon-efs-utils. The S3 gateway endpoint (no charge) keeps S3 traffic
	// (direct reads, the Amazon Linux repositories) off the NAT gateway, which bills per hour and per GB.
	vpc := awsec2.NewVpc(stack, jsii.String("Vpc"), &awsec2.VpcProps{
		MaxAzs:      jsii.Number(2),
		NatGateways: jsii.Number(1),
		GatewayEndpoints: &map[string]*awsec2.GatewayVpcEndpointOptions{
			"S3": {Service: awsec2.GatewayVpcEndpointAwsService_S3()},
		},
	})
	fileSystem := cdks3fileslambda.NewS3FilesFileSystem(stack, jsii.String("Files"), &cdks3fileslambda.S3FilesFileSystemProps{Vpc: vpc})
	results := fileSystem.AddAccessPoint(jsii.String("Results"), &cdks3fileslambda.S3FilesAccessPointOptions{Path: jsii.String("/results")})
	image := awsecs.ContainerImage_FromRegistry(jsii.String("public.ecr.aws/docker/library/busybox:stable"), nil)

	// ECS on Fargate (or ECS Managed Instances): volume, mount point, task role, NFS, the wait.
	taskDefinition := awsecs.NewFargateTaskDefinition(stack, jsii.String("Reader"), nil)
	taskDefinition.AddContainer(jsii.String("app"), &awsecs.ContainerDefinitionOptions{Image: image})
	service := awsecs.NewFargateService(stack, jsii.String("Service"), &awsecs.FargateServiceProps{
		Cluster:        awsecs.NewCluster(stack, jsii.String("Cluster"), &awsecs.ClusterProps{Vpc: vpc}),
		TaskDefinition: taskDefinition,
		// A task that cannot start fails the deployment in minutes instead of hours.
		CircuitBreaker: &awsecs.DeploymentCircuitBreaker{Rollback: jsii.Bool(true)},
		// New tasks mount (with the current rights) before old ones stop.
		MinHealthyPercent: jsii.Number(100),
	})
	cdks3fileslambda.EcsMount_OnService(service, results, &cdks3fileslambda.EcsMountOptions{
		ContainerPath: jsii.String("/mnt/results"), ReadOnly: jsii.Bool(true),
	})

	// AWS Batch on Fargate: the job role gets the grants, the environment joins the client group.
	job := awsbatch.NewEcsJobDefinition(stack, jsii.String("Job"), &awsbatch.EcsJobDefinitionProps{
		Container: awsbatch.NewEcsFargateContainerDefinition(stack, jsii.String("JobContainer"), &awsbatch.EcsFargateContainerDefinitionProps{
			Image:   image,
			Cpu:     jsii.Number(1),
			Memory:  awscdk.Size_Gibibytes(jsii.Number(2)),
			JobRole: awsiam.NewRole(stack, jsii.String("JobRole"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("ecs-tasks.amazonaws.com"), nil)}),
		}),
	})
	computeEnvironment := awsbatch.NewFargateComputeEnvironment(stack, jsii.String("Environment"), &awsbatch.FargateComputeEnvironmentProps{Vpc: vpc})
	cdks3fileslambda.BatchMount_OnJobDefinition(job, results, &cdks3fileslambda.BatchMountOptions{ComputeEnvironment: computeEnvironment})

	// EC2: at boot, install amazon-efs-utils, write the fstab line, mount (retrying until reachable).
	host := awsec2.NewInstance(stack, jsii.String("Host"), &awsec2.InstanceProps{
		Vpc:          vpc,
		InstanceType: awsec2.InstanceType_Of(awsec2.InstanceClass_T4G, awsec2.InstanceSize_MICRO),
		MachineImage: awsec2.MachineImage_LatestAmazonLinux2023(&awsec2.AmazonLinux2023ImageSsmParameterProps{CpuType: awsec2.AmazonLinuxCpuType_ARM_64}),
	})
	cdks3fileslambda.Ec2Mount_OnInstance(host, results, &cdks3fileslambda.Ec2MountOptions{MountPath: jsii.String("/mnt/results")})

	app.Synth(nil)
}
