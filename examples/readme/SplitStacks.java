import java.util.List;

import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesMountedFunction;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Runtime;

public class SplitStacks {
    public static void main(final String[] args) {
        App app = new App();
        Stack storage = new Stack(app, "Storage");
        Vpc vpc = Vpc.Builder.create(storage, "Vpc")
            .natGateways(0)
            .subnetConfiguration(List.of(SubnetConfiguration.builder()
                .name("Isolated").subnetType(SubnetType.PRIVATE_ISOLATED).build()))
            .build();
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(storage, "Files").vpc(vpc).build();

        // The compute stack's resources; the storage stack gains only exports of the values they use.
        Stack compute = new Stack(app, "Compute");
        Code code = Code.fromInline("exports.handler = async () => ({})");
        S3FilesAccessPoint shared = S3FilesAccessPoint.Builder.create(compute, "Shared")
            .fileSystem(fileSystem).path("/shared").build();
        S3FilesMountedFunction.Builder.create(compute, "Writer")
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(code)
            .accessPoint(shared).build();
        S3FilesMountedFunction.Builder.create(compute, "Reader")
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(code)
            .accessPoint(shared).readOnly(true).build();
        S3FilesMountedFunction.Builder.create(compute, "Own") // its own access point, beside it
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(code)
            .s3FileSystem(fileSystem).build();

        app.synth();
    }
}
