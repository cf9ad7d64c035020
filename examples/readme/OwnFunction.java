import java.nio.file.Path;
import java.util.List;

import io.github.cdks3files.lambda.LambdaMount;
import io.github.cdks3files.lambda.LambdaMountOptions;
import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesAccessPointProps;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetSelection;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;

public class OwnFunction {
    public static void main(final String[] args) {
        App app = new App();
        Stack storage = new Stack(app, "Storage");
        Vpc vpc = Vpc.Builder.create(storage, "Vpc")
            .natGateways(0)
            .subnetConfiguration(List.of(SubnetConfiguration.builder()
                .name("Isolated").subnetType(SubnetType.PRIVATE_ISOLATED).build()))
            .build();
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(storage, "Files").vpc(vpc).build();

        // Your own function, in another stack, built however you like.
        Stack compute = new Stack(app, "Compute");
        // Its access point beside it: replacing or removing it is then an ordinary update of this stack.
        S3FilesAccessPoint reports = S3FilesAccessPoint.Builder.create(compute, "Reports").fileSystem(fileSystem).path("/reports").build();
        Function worker = Function.Builder.create(compute, "Worker")
            .runtime(Runtime.NODEJS_24_X)
            .handler("index.handler")
            .code(Code.fromAsset(Path.of("worker").toString()))
            .vpc(vpc)
            .vpcSubnets(SubnetSelection.builder().subnetType(SubnetType.PRIVATE_ISOLATED).build())
            .build();
        // One call: the mount, the wait for the mount targets, NFS, scoped grants, MOUNT_PATH.
        LambdaMount.onFunction(worker, reports, LambdaMountOptions.builder().mountPath("/mnt/reports").build());

        app.synth();
    }
}
