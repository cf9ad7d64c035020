import java.util.List;
import java.util.Map;

import io.github.cdks3files.lambda.S3FilesAccessPoint;
import io.github.cdks3files.lambda.S3FilesAccessPointOptions;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesMountedFunction;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.iam.ArnPrincipal;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Runtime;

public class OneAccessPoint {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "PinnedClient");
        Vpc vpc = Vpc.Builder.create(stack, "Vpc")
            .maxAzs(2)
            .natGateways(0)
            .subnetConfiguration(List.of(SubnetConfiguration.builder()
                .name("isolated").subnetType(SubnetType.PRIVATE_ISOLATED).build()))
            .build();
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(stack, "Files").vpc(vpc).build();
        S3FilesAccessPoint reports = fileSystem.addAccessPoint("Reports",
            S3FilesAccessPointOptions.builder().path("/reports").build());
        S3FilesMountedFunction reporter = S3FilesMountedFunction.Builder.create(stack, "Reporter")
            .runtime(Runtime.NODEJS_24_X)
            .handler("index.handler")
            .code(Code.fromInline("exports.handler = async () => ({})"))
            .s3FileSystem(fileSystem)
            .accessPoint(reports)
            .build();

        // The Deny half of the documented per-role pair (the library's identity grant is the Allow):
        // whatever else this role is granted later, it mounts only through /reports.
        fileSystem.addToResourcePolicy(PolicyStatement.Builder.create()
            .sid("ReporterOnlyThroughReports")
            .effect(Effect.DENY)
            .principals(List.of(new ArnPrincipal(reporter.getRole().getRoleArn())))
            .actions(List.of("s3files:ClientMount", "s3files:ClientWrite", "s3files:ClientRootAccess"))
            .resources(List.of(fileSystem.getFileSystemArn()))
            .conditions(Map.of("StringNotEquals", Map.of("s3files:AccessPointArn", reports.getAccessPointArn())))
            .build());

        app.synth();
    }
}
