import java.util.Map;

import io.github.cdks3files.lambda.BatchMount;
import io.github.cdks3files.lambda.BatchMountOptions;
import io.github.cdks3files.lambda.Ec2Mount;
import io.github.cdks3files.lambda.Ec2MountOptions;
import io.github.cdks3files.lambda.EcsMount;
import io.github.cdks3files.lambda.EcsMountOptions;
import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesAccessPointOptions;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Size;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.batch.EcsFargateContainerDefinition;
import software.amazon.awscdk.services.batch.EcsJobDefinition;
import software.amazon.awscdk.services.batch.FargateComputeEnvironment;
import software.amazon.awscdk.services.ec2.AmazonLinuxCpuType;
import software.amazon.awscdk.services.ec2.AmazonLinux2023ImageSsmParameterProps;
import software.amazon.awscdk.services.ec2.GatewayVpcEndpointAwsService;
import software.amazon.awscdk.services.ec2.GatewayVpcEndpointOptions;
import software.amazon.awscdk.services.ec2.Instance;
import software.amazon.awscdk.services.ec2.InstanceClass;
import software.amazon.awscdk.services.ec2.InstanceSize;
import software.amazon.awscdk.services.ec2.InstanceType;
import software.amazon.awscdk.services.ec2.MachineImage;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.ecs.Cluster;
import software.amazon.awscdk.services.ecs.ContainerDefinitionOptions;
import software.amazon.awscdk.services.ecs.ContainerImage;
import software.amazon.awscdk.services.ecs.DeploymentCircuitBreaker;
import software.amazon.awscdk.services.ecs.FargateService;
import software.amazon.awscdk.services.ecs.FargateTaskDefinition;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;

public class OtherCompute {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "Pipeline");
        // Private subnets with one NAT gateway: the tasks pull their image from public ECR and the
        // instance installs amazon-efs-utils. The S3 gateway endpoint (no charge) keeps S3 traffic
        // (direct reads, the Amazon Linux repositories) off the NAT gateway, which bills per hour and per GB.
        Vpc vpc = Vpc.Builder.create(stack, "Vpc")
            .maxAzs(2)
            .natGateways(1)
            .gatewayEndpoints(Map.of("S3", GatewayVpcEndpointOptions.builder()
                .service(GatewayVpcEndpointAwsService.S3).build()))
            .build();
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(stack, "Files").vpc(vpc).build();
        S3FilesAccessPoint results = fileSystem.addAccessPoint("Results",
            S3FilesAccessPointOptions.builder().path("/results").build());
        ContainerImage image = ContainerImage.fromRegistry("public.ecr.aws/docker/library/busybox:stable");

        // ECS on Fargate (or ECS Managed Instances): volume, mount point, task role, NFS, the wait.
        FargateTaskDefinition taskDefinition = new FargateTaskDefinition(stack, "Reader");
        taskDefinition.addContainer("app", ContainerDefinitionOptions.builder().image(image).build());
        FargateService service = FargateService.Builder.create(stack, "Service")
            .cluster(Cluster.Builder.create(stack, "Cluster").vpc(vpc).build())
            .taskDefinition(taskDefinition)
            // A task that cannot start fails the deployment in minutes instead of hours.
            .circuitBreaker(DeploymentCircuitBreaker.builder().rollback(true).build())
            // New tasks mount (with the current rights) before old ones stop.
            .minHealthyPercent(100)
            .build();
        EcsMount.onService(service, results, EcsMountOptions.builder().containerPath("/mnt/results").readOnly(true).build());

        // AWS Batch on Fargate: the job role gets the grants, the environment joins the client group.
        EcsJobDefinition job = EcsJobDefinition.Builder.create(stack, "Job")
            .container(EcsFargateContainerDefinition.Builder.create(stack, "JobContainer")
                .image(image)
                .cpu(1)
                .memory(Size.gibibytes(2))
                .jobRole(Role.Builder.create(stack, "JobRole")
                    .assumedBy(new ServicePrincipal("ecs-tasks.amazonaws.com")).build())
                .build())
            .build();
        FargateComputeEnvironment computeEnvironment = FargateComputeEnvironment.Builder.create(stack, "Environment")
            .vpc(vpc).build();
        BatchMount.onJobDefinition(job, results, BatchMountOptions.builder().computeEnvironment(computeEnvironment).build());

        // EC2: at boot, install amazon-efs-utils, write the fstab line, mount (retrying until reachable).
        Instance host = Instance.Builder.create(stack, "Host")
            .vpc(vpc)
            .instanceType(InstanceType.of(InstanceClass.T4G, InstanceSize.MICRO))
            .machineImage(MachineImage.latestAmazonLinux2023(AmazonLinux2023ImageSsmParameterProps.builder()
                .cpuType(AmazonLinuxCpuType.ARM_64).build()))
            .build();
        Ec2Mount.onInstance(host, results, Ec2MountOptions.builder().mountPath("/mnt/results").build());

        app.synth();
    }
}
