import io.github.cdks3files.lambda.S3FilesMountedFunction;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Runtime;

public class QuickStart {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "QuickStart");

        // Makes a VPC without NAT, a hardened versioned bucket, the S3 Files file system with its
        // mount targets, an access point (/lambda), and a function that sees the bucket's lambda/ prefix at /mnt/s3files.
        S3FilesMountedFunction.Builder.create(stack, "Reader")
            .runtime(Runtime.NODEJS_24_X)
            .handler("index.handler")
            .code(Code.fromInline(
                "exports.handler = async () => require(\"fs\").readdirSync(process.env.MOUNT_PATH);"))
            .build();

        app.synth();
    }
}
