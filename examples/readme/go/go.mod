// The README programs in Go. test/bindings/run.sh builds them against the module jsii generates
// (dist/go), synthesizes each and compares the templates with TypeScript's, Python's and Java's.
module example.com/s3files-readme

go 1.26.0

require (
	github.com/aws/aws-cdk-go/awscdk/v2 v2.275.0
	github.com/aws/constructs-go/constructs/v10 v10.8.1
	github.com/aws/jsii-runtime-go v1.141.0
	github.com/example/cdk-s3files-lambda-go/cdks3fileslambda v0.0.0
)
