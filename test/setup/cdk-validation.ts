/**
 * aws-cdk-lib (2.271+) runs its CloudFormation validation plugin on every `synth()` unless
 * `CDK_VALIDATION=false`: ~80% of a small stack's synthesis CPU, and no test but one reads it.
 * Off here; on, and strict (any finding fails the synthesis), where it is a check: the validator
 * app that holds every distinct template the project produces (test/validators/templates.ts) and
 * the README programs as users synthesize them (test/util/synth-example.ts). A value set outside
 * jest wins (`CDK_VALIDATION=true npx jest …` runs it everywhere).
 */
process.env.CDK_VALIDATION ??= 'false';
