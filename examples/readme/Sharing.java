import java.util.List;
import java.util.Map;

import io.github.cdks3files.lambda.PosixUser;
import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesAccessPointOptions;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesMountedFunction;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.GatewayVpcEndpointAwsService;
import software.amazon.awscdk.services.ec2.GatewayVpcEndpointOptions;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Runtime;

public class Sharing {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "Sharing");
        Vpc vpc = Vpc.Builder.create(stack, "Vpc")
            .natGateways(0)
            .subnetConfiguration(List.of(SubnetConfiguration.builder()
                .name("Isolated").subnetType(SubnetType.PRIVATE_ISOLATED).build()))
            .gatewayEndpoints(Map.of("S3", GatewayVpcEndpointOptions.builder()
                .service(GatewayVpcEndpointAwsService.S3).build()))
            .build();
        Code code = Code.fromInline(
            "exports.handler = async () => require(\"fs\").readdirSync(process.env.MOUNT_PATH);");

        // One file system over the bucket's docs/ prefix, one access point: /app, owned by 1000:1000.
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(stack, "Docs")
            .vpc(vpc).prefix("docs/").build();
        S3FilesAccessPoint appDir = fileSystem.addAccessPoint("App", S3FilesAccessPointOptions.builder()
            .path("/app").posixUser(PosixUser.builder().uid(1000).gid(1000).build()).build());

        S3FilesMountedFunction.Builder.create(stack, "Writer")
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(code)
            .s3FileSystem(fileSystem).accessPoint(appDir)
            .build();
        S3FilesMountedFunction.Builder.create(stack, "Reader")
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(code)
            .s3FileSystem(fileSystem).accessPoint(appDir).readOnly(true)
            .build();
        // Root-owned (S3-born) entries: uid 0 with ClientRootAccess, assumed as in EFS (uid 0 draws a warning).
        S3FilesMountedFunction.Builder.create(stack, "Janitor")
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(code)
            .s3FileSystem(fileSystem)
            .accessPointOptions(S3FilesAccessPointOptions.builder()
                .path("/app").posixUser(PosixUser.builder().uid(0).gid(0).build()).build())
            .rootAccess(true)
            .build();

        app.synth();
    }
}
