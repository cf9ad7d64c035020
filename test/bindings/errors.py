"""What a Python user meets when the library refuses a value, run against the installed wheel.

The library's own synth-time errors reach Python as RuntimeError with the library's message,
which names the prop in Python's spelling; a value of the wrong type is refused before the
library sees it, by the binding's type check (typeguard), which names the Python parameter.
Warnings carry the Python spelling too. Exits non-zero on the first expectation that fails.
"""
import re

import aws_cdk as cdk
from aws_cdk import assertions
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from cdk_s3files_lambda import (
    LambdaMount,
    PosixUser,
    S3FilesAccessPointOptions,
    S3FilesFileSystem,
    S3FilesMountedFunction,
)


def stack():
    s = cdk.Stack(cdk.App(), "Errors")
    vpc = ec2.Vpc(
        s,
        "Vpc",
        nat_gateways=0,
        subnet_configuration=[ec2.SubnetConfiguration(name="I", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
    )
    return s, vpc


FN = dict(
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_inline("exports.handler = async () => 1;"),
)


def refused(build, pattern):
    try:
        build()
    except Exception as e:  # noqa: BLE001 - jsii raises RuntimeError, typeguard TypeError
        message = str(e)
        if not re.search(pattern, message, re.S):
            raise SystemExit(f"FAIL: expected /{pattern}/ in:\n{message}")
        print(f"ok: {type(e).__name__}: {message.splitlines()[0][:200]}")
        return
    raise SystemExit(f"FAIL: accepted, expected /{pattern}/")


# 1. A library error on a nested option: the prop as the user wrote it, in Python's spelling.
s, vpc = stack()
refused(
    lambda: S3FilesMountedFunction(
        s, "Fn", vpc=vpc, **FN,
        access_point_options=S3FilesAccessPointOptions(path="/app", posix_user=PosixUser(uid=-1, gid=1)),
    ),
    r"invalid accessPointOptions\.posixUser\.uid -1: .*Fix: .*\(Python: access_point_options\.posix_user\.uid; ",
)

# 2. A library error on a top-level prop.
s, vpc = stack()
refused(
    lambda: S3FilesFileSystem(s, "Fs", vpc=vpc, availability_timeout=cdk.Duration.seconds(5)),
    r"invalid availabilityTimeout 5 seconds: .*\(Python: availability_timeout; ",
)

# 3. A bucket where the file system goes: the binding lets the object through (the prop's type is
#    an interface), and the library's message says what to do, in Python's spelling.
s, vpc = stack()
bucket = s3.Bucket(s, "Bucket")
refused(
    lambda: S3FilesMountedFunction(s, "Fn", vpc=vpc, **FN, s3_file_system=bucket),
    r'invalid fileSystem "Errors/Bucket": it is an S3 bucket, not an S3 Files file system\. Fix: .*\(Python: file_system; ',
)

# 4. A value of the wrong primitive type never reaches the library: the binding's type check
#    (typeguard) answers first, naming the Python parameter.
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
fn = lambda_.Function(s, "Reader", vpc=vpc, **FN)
refused(
    lambda: LambdaMount.on_function(fn, fs.add_access_point("Ap"), read_only="yes"),
    r"read_only",
)

# 5. A warning, as `cdk synth` prints it: in Python's spelling as well.
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
fn = lambda_.Function(s, "Reader", vpc=vpc, **FN)
LambdaMount.on_function(fn, fs.add_access_point("Ap"), read_only=True, root_access=True)
warnings = assertions.Annotations.from_stack(s).find_warning(
    "*", assertions.Match.string_like_regexp("Python: read_only, root_access")
)
if len(warnings) != 1:
    raise SystemExit(f"FAIL: expected one warning with the Python spelling, found {warnings}")
print(f"ok: warning: {warnings[0].entry.data[:200]}")
