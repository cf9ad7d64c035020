package com.example.s3files;

import io.github.cdks3files.lambda.AgentCoreMount;
import io.github.cdks3files.lambda.AgentCoreMountOptions;
import io.github.cdks3files.lambda.BatchMount;
import io.github.cdks3files.lambda.BatchMountOptions;
import io.github.cdks3files.lambda.Ec2Mount;
import io.github.cdks3files.lambda.Ec2MountOptions;
import io.github.cdks3files.lambda.EcsMount;
import io.github.cdks3files.lambda.EcsMountOptions;
import io.github.cdks3files.lambda.IS3FilesAccessPoint;
import io.github.cdks3files.lambda.IS3FilesFileSystem;
import io.github.cdks3files.lambda.ImportDataRule;
import io.github.cdks3files.lambda.LambdaMount;
import io.github.cdks3files.lambda.LambdaMountOptions;
import io.github.cdks3files.lambda.PosixUser;
import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesAccessPointAttributes;
import io.github.cdks3files.lambda.S3FilesAccessPointOptions;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesFileSystemAttributes;
import io.github.cdks3files.lambda.S3FilesMountedFunction;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.App;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Size;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.batch.EcsFargateContainerDefinition;
import software.amazon.awscdk.services.bedrockagentcore.AgentRuntimeArtifact;
import software.amazon.awscdk.services.bedrockagentcore.RuntimeNetworkConfiguration;
import software.amazon.awscdk.services.bedrockagentcore.VpcConfigProps;
import software.amazon.awscdk.services.batch.EcsJobDefinition;
import software.amazon.awscdk.services.batch.FargateComputeEnvironment;
import software.amazon.awscdk.services.ec2.AmazonLinux2023ImageSsmParameterProps;
import software.amazon.awscdk.services.ec2.AmazonLinuxCpuType;
import software.amazon.awscdk.services.ec2.Instance;
import software.amazon.awscdk.services.ec2.InstanceClass;
import software.amazon.awscdk.services.ec2.InstanceSize;
import software.amazon.awscdk.services.ec2.InstanceType;
import software.amazon.awscdk.services.ec2.MachineImage;
import software.amazon.awscdk.services.ecs.Cluster;
import software.amazon.awscdk.services.ecs.ContainerDefinitionOptions;
import software.amazon.awscdk.services.ecs.ContainerImage;
import software.amazon.awscdk.services.ecs.FargateService;
import software.amazon.awscdk.services.ecs.FargateTaskDefinition;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.ec2.GatewayVpcEndpointAwsService;
import software.amazon.awscdk.services.ec2.GatewayVpcEndpointOptions;
import software.amazon.awscdk.services.ec2.IVpc;
import software.amazon.awscdk.services.ec2.SecurityGroup;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetSelection;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.ec2.VpcAttributes;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.DirectS3Read;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.s3.Bucket;
import software.constructs.Construct;

/** The example app in Java: the same stack as examples/typescript/app.ts. */
public final class ExampleApp {
    // Inline code keeps the template free of language-specific asset hashes.
    static final String HANDLER_CODE =
        "const fs = require(\"fs\"); exports.handler = async () => fs.readdirSync(process.env.MOUNT_PATH);";

    public static class ExampleStack extends Stack {
        public ExampleStack(final Construct scope, final String id) {
            this(scope, id, null);
        }

        public ExampleStack(final Construct scope, final String id, final StackProps props) {
            super(scope, id, props);

            // No NAT: isolated subnets, S3 reached through a gateway endpoint.
            Vpc vpc = Vpc.Builder.create(this, "Vpc")
                .maxAzs(2)
                .natGateways(0)
                .subnetConfiguration(List.of(SubnetConfiguration.builder()
                    .name("isolated")
                    .subnetType(SubnetType.PRIVATE_ISOLATED)
                    .cidrMask(24)
                    .build()))
                .gatewayEndpoints(Map.of("S3", GatewayVpcEndpointOptions.builder()
                    .service(GatewayVpcEndpointAwsService.S3)
                    .build()))
                .build();
            SubnetSelection subnets = SubnetSelection.builder()
                .subnetType(SubnetType.PRIVATE_ISOLATED)
                .build();

            S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(this, "FileSystem")
                .vpc(vpc)
                .vpcSubnets(subnets)
                .importDataRules(List.of(ImportDataRule.builder().prefix("").sizeLessThan(Size.kibibytes(256)).build()))
                .expireAfterLastAccess(Duration.days(30))
                .build();

            S3FilesMountedFunction fn = S3FilesMountedFunction.Builder.create(this, "Processor")
                .runtime(Runtime.NODEJS_24_X)
                .architecture(Architecture.ARM_64)
                .handler("index.handler")
                .code(Code.fromInline(HANDLER_CODE))
                .memorySize(1024)
                .timeout(Duration.seconds(30))
                .vpc(vpc)
                .vpcSubnets(subnets)
                .s3FileSystem(fileSystem)
                .mountPath("/mnt/data")
                .accessPointOptions(S3FilesAccessPointOptions.builder()
                    .path("/processor")
                    .posixUser(PosixUser.builder().uid(1001).gid(1001).build())
                    .build())
                .directS3Read(DirectS3Read.enabled(fileSystem.getBucket()))
                .build();

            CfnOutput.Builder.create(this, "FileSystemId").value(fileSystem.getFileSystemId()).build();
            CfnOutput.Builder.create(this, "FunctionName").value(fn.getFunctionName()).build();
        }
    }

    /** A file system made elsewhere, imported by attributes and mounted on a plain lambda Function. */
    public static class ImportedStack extends Stack {
        public ImportedStack(final Construct scope, final String id) {
            super(scope, id, null);

            IVpc vpc = Vpc.fromVpcAttributes(this, "Vpc", VpcAttributes.builder()
                .vpcId("vpc-0123456789abcdef0")
                .availabilityZones(List.of("us-east-1a", "us-east-1b"))
                .isolatedSubnetIds(List.of("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"))
                .build());
            IS3FilesFileSystem fileSystem = S3FilesFileSystem.fromFileSystemAttributes(this, "Shared", S3FilesFileSystemAttributes.builder()
                .fileSystemId("fs-0123456789abcdef0")
                .vpc(vpc)
                .mountTargetAvailabilityZones(List.of("us-east-1a", "us-east-1b"))
                .clientSecurityGroup(SecurityGroup.fromSecurityGroupId(this, "Clients", "sg-0123456789abcdef0"))
                .bucket(Bucket.fromBucketName(this, "Bucket", "shared-data-bucket"))
                .build());
            IS3FilesAccessPoint accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(this, "Team", S3FilesAccessPointAttributes.builder()
                .fileSystem(fileSystem)
                .accessPointId("fsap-0123456789abcdef0")
                
                .build());

            Function reader = Function.Builder.create(this, "Reader")
                .runtime(Runtime.NODEJS_24_X)
                .handler("index.handler")
                .code(Code.fromInline(HANDLER_CODE))
                .vpc(vpc)
                .build();
            LambdaMount.onFunction(reader, accessPoint, LambdaMountOptions.builder().readOnly(true).build());
        }
    }

    /** One imported file system mounted by a Fargate service, a Batch job, an EC2 instance and an AgentCore runtime. */
    public static class OtherComputeStack extends Stack {
        public OtherComputeStack(final Construct scope, final String id) {
            super(scope, id, null);

            IVpc vpc = Vpc.fromVpcAttributes(this, "Vpc", VpcAttributes.builder()
                .vpcId("vpc-0123456789abcdef0")
                .availabilityZones(List.of("us-east-1a", "us-east-1b"))
                .isolatedSubnetIds(List.of("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"))
                .build());
            IS3FilesFileSystem fileSystem = S3FilesFileSystem.fromFileSystemAttributes(this, "Shared", S3FilesFileSystemAttributes.builder()
                .fileSystemId("fs-0123456789abcdef0")
                .vpc(vpc)
                .mountTargetAvailabilityZones(List.of("us-east-1a", "us-east-1b"))
                .clientSecurityGroup(SecurityGroup.fromSecurityGroupId(this, "Clients", "sg-0123456789abcdef0"))
                .bucket(Bucket.fromBucketName(this, "Bucket", "shared-data-bucket"))
                .build());
            IS3FilesAccessPoint accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(this, "Results", S3FilesAccessPointAttributes.builder()
                .fileSystem(fileSystem)
                .accessPointId("fsap-0123456789abcdef0")
                
                .build());
            ContainerImage image = ContainerImage.fromRegistry("public.ecr.aws/docker/library/busybox:stable");

            // ECS on Fargate: the volume, the mount point, the task role, NFS, and the wait.
            Cluster cluster = Cluster.Builder.create(this, "Cluster").vpc(vpc).build();
            FargateTaskDefinition task = FargateTaskDefinition.Builder.create(this, "Task").build();
            task.addContainer("app", ContainerDefinitionOptions.builder().image(image).build());
            FargateService service = FargateService.Builder.create(this, "Service").cluster(cluster).taskDefinition(task).build();
            EcsMount.onService(service, accessPoint, EcsMountOptions.builder().containerPath("/mnt/results").readOnly(true).build());

            // AWS Batch on Fargate.
            Role jobRole = Role.Builder.create(this, "JobRole").assumedBy(new ServicePrincipal("ecs-tasks.amazonaws.com")).build();
            EcsJobDefinition job = EcsJobDefinition.Builder.create(this, "Job")
                .container(EcsFargateContainerDefinition.Builder.create(this, "JobContainer")
                    .image(image).cpu(1).memory(Size.gibibytes(2)).jobRole(jobRole).build())
                .build();
            FargateComputeEnvironment computeEnvironment = FargateComputeEnvironment.Builder.create(this, "Environment").vpc(vpc).build();
            BatchMount.onJobDefinition(job, accessPoint, BatchMountOptions.builder().computeEnvironment(computeEnvironment).build());

            // EC2: user data installs amazon-efs-utils, writes the fstab line and mounts at boot.
            Instance host = Instance.Builder.create(this, "Host")
                .vpc(vpc)
                .instanceType(InstanceType.of(InstanceClass.T4G, InstanceSize.MICRO))
                .machineImage(MachineImage.latestAmazonLinux2023(AmazonLinux2023ImageSsmParameterProps.builder()
                    .cpuType(AmazonLinuxCpuType.ARM_64).build()))
                .build();
            Ec2Mount.onInstance(host, accessPoint, Ec2MountOptions.builder().mountPath("/mnt/results").build());

            // Bedrock AgentCore: a runtime in the VPC reads the same access point.
            software.amazon.awscdk.services.bedrockagentcore.Runtime agent =
                software.amazon.awscdk.services.bedrockagentcore.Runtime.Builder.create(this, "Agent")
                    .runtimeName("results_agent")
                    .agentRuntimeArtifact(AgentRuntimeArtifact.fromImageUri("123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest"))
                    .networkConfiguration(RuntimeNetworkConfiguration.usingVpc(this, VpcConfigProps.builder().vpc(vpc).build()))
                    .build();
            AgentCoreMount.onRuntime(agent, accessPoint, AgentCoreMountOptions.builder().mountPath("/mnt/results").readOnly(true).build());
        }
    }

    public static void main(final String[] args) {
        App app = new App();
        new ExampleStack(app, "S3FilesLambdaExample");
        new ImportedStack(app, "S3FilesLambdaImported");
        new OtherComputeStack(app, "S3FilesOtherCompute");
        app.synth();
    }
}
