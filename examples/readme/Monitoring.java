import java.util.List;

import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesMonitoring;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.sns.Topic;

public class Monitoring {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "Monitored");
        Vpc vpc = Vpc.Builder.create(stack, "Vpc")
            .natGateways(0)
            .subnetConfiguration(List.of(SubnetConfiguration.builder()
                .name("Isolated").subnetType(SubnetType.PRIVATE_ISOLATED).build()))
            .build();
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(stack, "Files").vpc(vpc).build();

        // Six alarms (export/import failures, lost+found, pending exports, export age, connections)
        // and a dashboard; every threshold is a prop with a documented default.
        S3FilesMonitoring.Builder.create(stack, "Monitoring")
            .fileSystem(fileSystem)
            .alarmTopic(new Topic(stack, "Alerts"))
            .exportAgeThreshold(Duration.minutes(10))
            .build();

        app.synth();
    }
}
