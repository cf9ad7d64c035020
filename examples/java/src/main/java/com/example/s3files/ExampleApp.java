package com.example.s3files;

import io.github.cdks3files.lambda.IS3FilesAccessPoint;
import io.github.cdks3files.lambda.IS3FilesFileSystem;
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
                .importSizeThreshold(Size.kibibytes(256))
                .expireAfterLastAccess(Duration.days(30))
                .build();

            S3FilesMountedFunction fn = S3FilesMountedFunction.Builder.create(this, "Processor")
                .runtime(Runtime.NODEJS_22_X)
                .architecture(Architecture.ARM_64)
                .handler("index.handler")
                .code(Code.fromInline(HANDLER_CODE))
                .memorySize(1024)
                .timeout(Duration.seconds(30))
                .vpc(vpc)
                .vpcSubnets(subnets)
                .fileSystem(fileSystem)
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
                .availabilityZones(List.of("us-east-1a", "us-east-1b"))
                .clientSecurityGroup(SecurityGroup.fromSecurityGroupId(this, "Clients", "sg-0123456789abcdef0"))
                .clientTagKey("s3files-client-0123456789abcdef")
                .bucket(Bucket.fromBucketName(this, "Bucket", "shared-data-bucket"))
                .build());
            IS3FilesAccessPoint accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(this, "Team", S3FilesAccessPointAttributes.builder()
                .fileSystem(fileSystem)
                .accessPointId("fsap-0123456789abcdef0")
                .path("/team")
                .build());

            Function reader = Function.Builder.create(this, "Reader")
                .runtime(Runtime.NODEJS_22_X)
                .handler("index.handler")
                .code(Code.fromInline(HANDLER_CODE))
                .vpc(vpc)
                .build();
            accessPoint.mountOnFunction(reader, LambdaMountOptions.builder().readOnly(true).build());
        }
    }

    public static void main(final String[] args) {
        App app = new App();
        new ExampleStack(app, "S3FilesLambdaExample");
        new ImportedStack(app, "S3FilesLambdaImported");
        app.synth();
    }
}
