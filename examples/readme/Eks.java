import java.util.List;
import java.util.Map;

import io.github.cdks3files.lambda.EksDriverOptions;
import io.github.cdks3files.lambda.EksMount;
import io.github.cdks3files.lambda.EksStorageClassOptions;
import io.github.cdks3files.lambda.EksVolume;
import io.github.cdks3files.lambda.EksVolumeOptions;
import io.github.cdks3files.lambda.S3FilesAccessPointOptions;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.ec2.IVpc;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.ec2.VpcAttributes;
import software.amazon.awscdk.services.eks_v2.Cluster;
import software.amazon.awscdk.services.eks_v2.ClusterAttributes;
import software.amazon.awscdk.services.eks_v2.ICluster;
import software.amazon.awscdk.services.eks_v2.IKubectlProvider;
import software.amazon.awscdk.services.eks_v2.KubectlProvider;
import software.amazon.awscdk.services.eks_v2.KubectlProviderAttributes;
import software.amazon.awscdk.services.eks_v2.KubernetesManifest;

public class Eks {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "Kubernetes", StackProps.builder()
            .env(Environment.builder().account("111111111111").region("us-east-1").build()).build());
        // An aws-eks-v2 cluster made elsewhere (another CDK app, eksctl, the console), with Linux managed
        // node groups, imported with the kubectl handler its app exports: this app needs no kubectl layer.
        IVpc vpc = Vpc.fromVpcAttributes(stack, "Vpc", VpcAttributes.builder()
            .vpcId("vpc-0123456789abcdef0")
            .availabilityZones(List.of("us-east-1a", "us-east-1b"))
            .privateSubnetIds(List.of("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"))
            .privateSubnetRouteTableIds(List.of("rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb"))
            .build());
        IKubectlProvider kubectlProvider = KubectlProvider.fromKubectlProviderAttributes(stack, "KubectlProvider",
            KubectlProviderAttributes.builder()
                .serviceToken("arn:aws:lambda:us-east-1:111111111111:function:my-cluster-kubectl")
                .build());
        ICluster cluster = Cluster.fromClusterAttributes(stack, "Cluster", ClusterAttributes.builder()
            .clusterName("my-cluster")
            .vpc(vpc)
            // EKS puts the cluster security group on managed nodes: the mount targets let it in.
            .clusterSecurityGroupId("sg-0123456789abcdef0")
            .kubectlProvider(kubectlProvider)
            .build());
        S3FilesFileSystem fileSystem = S3FilesFileSystem.Builder.create(stack, "Files").vpc(vpc).build();

        // The Amazon EFS CSI driver as an EKS add-on (3.0.0 or later), its roles through EKS Pod Identity
        // (the cluster runs the Pod Identity agent; installPodIdentityAgent(true) adds it).
        EksMount.installDriver(cluster, EksDriverOptions.builder().addonVersion("v3.0.0-eksbuild.1").build());

        // A static volume: a PersistentVolume on the access point and a claim in namespace "app".
        EksVolume shared = EksMount.onCluster(cluster,
            fileSystem.addAccessPoint("Shared", S3FilesAccessPointOptions.builder().path("/shared").build()),
            EksVolumeOptions.builder().claimName("shared").namespace("app").build());

        // Dynamic provisioning: the driver's controller creates an access point per claim.
        EksMount.addStorageClass(cluster, fileSystem, EksStorageClassOptions.builder().storageClassName("s3files").build());

        // A pod on the static volume. The claim's name carries the access point id: pass it on.
        KubernetesManifest pod = cluster.addManifest("Reader", Map.of(
            "apiVersion", "v1",
            "kind", "Pod",
            "metadata", Map.of("name", "reader", "namespace", "app"),
            "spec", Map.of(
                "containers", List.of(Map.of(
                    "name", "app",
                    "image", "public.ecr.aws/docker/library/busybox:stable",
                    "command", List.of("sh", "-c", "ls /data && sleep 3600"),
                    "volumeMounts", List.of(Map.of("name", "data", "mountPath", "/data")))),
                "volumes", List.of(Map.of("name", "data",
                    "persistentVolumeClaim", Map.of("claimName", shared.getClaimName()))))));
        pod.getNode().addDependency(shared.getManifest());

        app.synth();
    }
}
