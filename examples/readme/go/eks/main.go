package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseksv2"
	"github.com/aws/jsii-runtime-go"
	"github.com/example/cdk-s3files-lambda-go/cdks3fileslambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Kubernetes"), &awscdk.StackProps{
		Env: &awscdk.Environment{Account: jsii.String("111111111111"), Region: jsii.String("us-east-1")},
	})
	// An aws-eks-v2 cluster made elsewhere (another CDK app, eksctl, the console), with Linux managed
	// node groups, imported with the kubectl handler its app exports: this app needs no kubectl layer.
	vpc := awsec2.Vpc_FromVpcAttributes(stack, jsii.String("Vpc"), &awsec2.VpcAttributes{
		VpcId:                      jsii.String("vpc-0123456789abcdef0"),
		AvailabilityZones:          jsii.Strings("us-east-1a", "us-east-1b"),
		PrivateSubnetIds:           jsii.Strings("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"),
		PrivateSubnetRouteTableIds: jsii.Strings("rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb"),
	})
	kubectlProvider := awseksv2.KubectlProvider_FromKubectlProviderAttributes(stack, jsii.String("KubectlProvider"), &awseksv2.KubectlProviderAttributes{
		ServiceToken: jsii.String("arn:aws:lambda:us-east-1:111111111111:function:my-cluster-kubectl"),
	})
	cluster := awseksv2.Cluster_FromClusterAttributes(stack, jsii.String("Cluster"), &awseksv2.ClusterAttributes{
		ClusterName: jsii.String("my-cluster"),
		Vpc:         vpc,
		// EKS puts the cluster security group on managed nodes: the mount targets let it in.
		ClusterSecurityGroupId: jsii.String("sg-0123456789abcdef0"),
		KubectlProvider:        kubectlProvider,
	})
	fileSystem := cdks3fileslambda.NewS3FilesFileSystem(stack, jsii.String("Files"), &cdks3fileslambda.S3FilesFileSystemProps{Vpc: vpc})

	// The Amazon EFS CSI driver as an EKS add-on (3.0.0 or later), its roles through EKS Pod Identity
	// (the cluster runs the Pod Identity agent; InstallPodIdentityAgent: true adds it).
	cdks3fileslambda.EksMount_InstallDriver(cluster, &cdks3fileslambda.EksDriverOptions{AddonVersion: jsii.String("v3.0.0-eksbuild.1")})

	// A static volume: a PersistentVolume on the access point and a claim in namespace "app".
	shared := cdks3fileslambda.EksMount_OnCluster(cluster,
		fileSystem.AddAccessPoint(jsii.String("Shared"), &cdks3fileslambda.S3FilesAccessPointOptions{Path: jsii.String("/shared")}),
		&cdks3fileslambda.EksVolumeOptions{ClaimName: jsii.String("shared"), Namespace: jsii.String("app")})

	// Dynamic provisioning: the driver's controller creates an access point per claim.
	cdks3fileslambda.EksMount_AddStorageClass(cluster, fileSystem, &cdks3fileslambda.EksStorageClassOptions{StorageClassName: jsii.String("s3files")})

	// A pod on the static volume. The claim's name carries the access point id: pass it on.
	pod := cluster.AddManifest(jsii.String("Reader"), &map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata":   map[string]interface{}{"name": "reader", "namespace": "app"},
		"spec": map[string]interface{}{
			"containers": []interface{}{map[string]interface{}{
				"name":         "app",
				"image":        "public.ecr.aws/docker/library/busybox:stable",
				"command":      []interface{}{"sh", "-c", "ls /data && sleep 3600"},
				"volumeMounts": []interface{}{map[string]interface{}{"name": "data", "mountPath": "/data"}},
			}},
			"volumes": []interface{}{map[string]interface{}{"name": "data", "persistentVolumeClaim": map[string]interface{}{"claimName": shared.ClaimName}}},
		},
	})
	pod.Node().AddDependency(shared.Manifest)

	app.Synth(nil)
}
