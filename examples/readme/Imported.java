import java.util.List;

import io.github.cdks3files.lambda.IS3FilesAccessPoint;
import io.github.cdks3files.lambda.IS3FilesFileSystem;
import io.github.cdks3files.lambda.LambdaMount;
import io.github.cdks3files.lambda.LambdaMountOptions;
import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesAccessPointAttributes;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesFileSystemAttributes;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.ec2.IVpc;
import software.amazon.awscdk.services.ec2.SecurityGroup;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.ec2.VpcAttributes;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.s3.Bucket;

public class Imported {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "Consumer", StackProps.builder()
            .env(Environment.builder().account("111111111111").region("us-east-1").build()).build());
        IVpc vpc = Vpc.fromVpcAttributes(stack, "Vpc", VpcAttributes.builder()
            .vpcId("vpc-0123456789abcdef0")
            .availabilityZones(List.of("us-east-1a", "us-east-1b"))
            .isolatedSubnetIds(List.of("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"))
            .isolatedSubnetRouteTableIds(List.of("rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb"))
            .build());

        // A file system made elsewhere (another app, the console): what this app needs to know of it.
        IS3FilesFileSystem fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, "Shared",
            S3FilesFileSystemAttributes.builder()
                .fileSystemId("fs-0123456789abcdef0")
                .vpc(vpc)
                .mountTargetAvailabilityZones(List.of("us-east-1a", "us-east-1b"))
                // A group the mount targets admit on 2049 (or securityGroups: the mount targets' own groups).
                .clientSecurityGroup(SecurityGroup.fromSecurityGroupId(stack, "Clients", "sg-0123456789abcdef0"))
                .bucket(Bucket.fromBucketName(stack, "Bucket", "shared-data-bucket"))
                .build());
        IS3FilesAccessPoint team = S3FilesAccessPoint.fromAccessPointAttributes(stack, "Team",
            S3FilesAccessPointAttributes.builder()
                .fileSystem(fileSystem).accessPointId("fsap-0123456789abcdef0").build());

        Function reader = Function.Builder.create(stack, "Reader")
            .runtime(Runtime.NODEJS_24_X)
            .handler("index.handler")
            .code(Code.fromInline(
                "exports.handler = async () => require(\"fs\").readdirSync(process.env.MOUNT_PATH);"))
            .vpc(vpc)
            .build();
        LambdaMount.onFunction(reader, team, LambdaMountOptions.builder().readOnly(true).build());

        app.synth();
    }
}
