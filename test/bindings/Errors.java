import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.cdks3files.lambda.LambdaMount;
import io.github.cdks3files.lambda.LambdaMountOptions;
import io.github.cdks3files.lambda.PosixUser;
import io.github.cdks3files.lambda.S3FilesAccessPointOptions;
import io.github.cdks3files.lambda.S3FilesClientAction;
import io.github.cdks3files.lambda.S3FilesFileSystem;
import io.github.cdks3files.lambda.S3FilesMountedFunction;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;

/**
 * What a Java user meets when the library refuses a value, run against the installed jar (the
 * Java side of test/bindings/errors.py). The library's synth-time errors reach Java as a
 * RuntimeException carrying the library's message, which names each prop as the Java builder
 * method; warnings too. A value of the wrong type (a Bucket as fileSystem, a String as readOnly)
 * never gets this far: javac refuses it, so there is nothing to run for it.
 */
public class Errors {
    private static Stack stack;
    private static Vpc vpc;

    private static void fresh() {
        stack = new Stack(new App(), "Errors");
        vpc = Vpc.Builder.create(stack, "Vpc").natGateways(0)
            .subnetConfiguration(List.of(SubnetConfiguration.builder().name("I").subnetType(SubnetType.PRIVATE_ISOLATED).build()))
            .build();
    }

    private static Function plain(final String id) {
        return Function.Builder.create(stack, id).vpc(vpc)
            .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(Code.fromInline("exports.handler = async () => 1;"))
            .build();
    }

    private static void refused(final Supplier<Object> build, final String pattern) {
        try {
            build.get();
        } catch (RuntimeException e) {
            String message = String.valueOf(e.getMessage());
            if (!Pattern.compile(pattern, Pattern.DOTALL).matcher(message).find()) {
                throw new AssertionError("expected /" + pattern + "/ in:\n" + message);
            }
            System.out.println("ok: " + e.getClass().getSimpleName() + ": " + shown(message.split("\n")[0]));
            return;
        }
        throw new AssertionError("accepted, expected /" + pattern + "/");
    }

    public static void main(final String[] args) {
        // 1. A library error on a nested option: the builder methods that lead to the value.
        fresh();
        refused(() -> S3FilesMountedFunction.Builder.create(stack, "Fn").vpc(vpc)
                .runtime(Runtime.NODEJS_24_X).handler("index.handler").code(Code.fromInline("exports.handler = async () => 1;"))
                .accessPointOptions(S3FilesAccessPointOptions.builder().path("/app").posixUser(PosixUser.builder().uid(-1).gid(1).build()).build())
                .build(),
            "invalid accessPointOptions\\.posixUser\\.uid -1: .*Fix: .*Java: accessPointOptions\\(…\\) › posixUser\\(…\\) › uid\\(…\\)");

        // 2. A library error on a top-level prop.
        fresh();
        refused(() -> S3FilesFileSystem.Builder.create(stack, "Fs").vpc(vpc).availabilityTimeout(Duration.seconds(5)).build(),
            "invalid availabilityTimeout 5 seconds: .*Java: availabilityTimeout\\(…\\)");

        // 3. A warning, as `cdk synth` prints it: in the builders' spelling as well.
        fresh();
        S3FilesFileSystem fs = S3FilesFileSystem.Builder.create(stack, "Fs").vpc(vpc).build();
        LambdaMount.onFunction(plain("Reader"), fs.addAccessPoint("Ap", S3FilesAccessPointOptions.builder().path("/app").build()), LambdaMountOptions.builder().readOnly(true).rootAccess(true).build());
        String label = "Java: readOnly(…), rootAccess(…)";
        List<String> warnings = stack.getNode().findAll().stream()
            .flatMap(c -> c.getNode().getMetadata().stream())
            .filter(m -> m.getType().equals("aws:cdk:warning") && String.valueOf(m.getData()).contains(label))
            .map(m -> String.valueOf(m.getData()))
            .collect(Collectors.toList());
        if (warnings.size() != 1) {
            throw new AssertionError("expected one warning naming " + label + ", found " + warnings);
        }
        System.out.println("ok: warning: " + shown(warnings.get(0)));

        // 4. The client actions as constants: the IAM action names as Java strings.
        String[][] actions = {
            {S3FilesClientAction.MOUNT, "s3files:ClientMount"},
            {S3FilesClientAction.WRITE, "s3files:ClientWrite"},
            {S3FilesClientAction.ROOT_ACCESS, "s3files:ClientRootAccess"},
        };
        for (String[] a : actions) {
            if (!a[1].equals(a[0])) {
                throw new AssertionError("S3FilesClientAction constant is " + a[0] + ", expected " + a[1]);
            }
            System.out.println("ok: S3FilesClientAction " + a[0]);
        }
    }

    /** The start of a message and its spelling label, which ends it. */
    private static String shown(final String message) {
        int label = message.lastIndexOf(" (Python: ");
        return label < 0 ? message : message.substring(0, Math.min(100, label)) + " …" + message.substring(label);
    }
}
