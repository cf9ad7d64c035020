import * as fs from 'fs';
import * as path from 'path';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cxapi from 'aws-cdk-lib/cx-api';
import * as ts from 'typescript';
import { handWiredStack, libraryStack, policyCharacters } from '../benchmarks/synth';
import { ImportTrigger, S3FilesAccessPoint, S3FilesFileSystem, S3FilesMonitoring, S3FilesMountedFunction } from '../src';
import { docsText } from './util/docs';

// The numbers the docs state that a computer can check: computed here from the code, the
// synthesized templates and the benchmark's own totals, and compared with the text. A number
// changed back (or left behind by a code change) fails here.

const root = path.join(__dirname, '..');
// The README and docs/ (a claim may live in either).
const readme = docsText();
const results = fs.readFileSync(path.join(root, 'benchmarks', 'RESULTS.md'), 'utf8');

/** The first match of `re` in `text`, or a failure naming what the docs no longer say. */
function find(text: string, re: RegExp, what: string): RegExpExecArray {
  const m = re.exec(text);
  if (!m) throw new Error(`the docs no longer say ${what} (${re})`);
  return m;
}
const num = (s: string): number => Number(s.replace(/,/g, ''));

/** Rows (cells trimmed) of the first markdown table after `heading`, header and rule dropped. */
function table(text: string, heading: string): string[][] {
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`no '${heading}'`);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}
/** The numbers in a cell: `**34.2×**` -> [34.2], `1,205` -> [1205]. */
const nums = (cell: string): number[] => (cell.match(/\d[\d,]*(\.\d+)?/g) ?? []).map(num);
/** Decimal places a number was written with. */
const places = (cell: string): number => (/\.(\d+)/.exec(cell.replace(/\*/g, ''))?.[1].length ?? 0);

/**
 * Whether `stated`, as rounded in the text, can be `a / b` for values that round to `a` and `b`
 * as written: the interval of the quotient overlaps the interval of the stated value.
 */
function ratioConsistent(stated: string, a: string, b: string): boolean {
  const half = (s: string) => 0.5 * 10 ** -places(s);
  const [x, y, r] = [nums(a)[0], nums(b)[0], nums(stated)[0]];
  const lo = (x - half(a)) / (y + half(b));
  const hi = (x + half(a)) / (y - half(b));
  return r + half(stated) >= lo && r - half(stated) <= hi;
}

function template(build: (app: App) => Stack, context?: Record<string, unknown>): any {
  const app = new App({ context });
  const stack = build(app);
  return app.synth().getStackByName(stack.stackName).template;
}
const resources = (t: any): any[] => Object.values(t.Resources);
const ofType = (t: any, type: string): any[] => resources(t).filter((r) => r.Type === type);
const dependsOn = (t: any): number => resources(t).reduce((n, r) => n + (Array.isArray(r.DependsOn) ? r.DependsOn.length : r.DependsOn ? 1 : 0), 0);

/** Bad configurations in test/security/hostile-input.test.ts: the entries of REJECTED and WARNED. */
function hostileCases(): number {
  const file = path.join(root, 'test', 'security', 'hostile-input.test.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let count = 0;
  let tables = 0;
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && ['REJECTED', 'WARNED'].includes(d.name.text) && d.initializer && ts.isObjectLiteralExpression(d.initializer)) {
        count += d.initializer.properties.length;
        tables++;
      }
    }
  }
  if (tables !== 2) throw new Error('hostile-input.test.ts no longer has its REJECTED and WARNED tables');
  return count;
}

// ------------------------------------------------------------------------------------------
// Synthesized once for the tests below: the benchmark's library and hand-wired stacks.
const lib1 = template((app) => libraryStack(app, 1));
const lib25 = template((app) => libraryStack(app, 25));
const lib50 = template((app) => libraryStack(app, 50));
const hand25 = template((app) => handWiredStack(app, 25));
const hand50 = template((app) => handWiredStack(app, 50));
const perFunction = (resources(lib50).length - resources(lib1).length) / 49;
const fixedPart = resources(lib1).length - perFunction;
/** `make`'s value, made on first use (the largest stacks take seconds to synthesize). */
function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}
/**
 * The largest N whose library stack synthesizes (aws-cdk-lib refuses more than 500 resources),
 * estimated from the fixed part and the resources per function, then proven by synthesis.
 */
function largestStack(fixed: number, per: number, context?: Record<string, unknown>): number {
  const estimate = Math.floor((500 - fixed) / per);
  expect(() => template((app) => libraryStack(app, estimate), context)).not.toThrow();
  expect(() => template((app) => libraryStack(app, estimate + 1), context)).toThrow(/greater than allowed maximum of 500/);
  return estimate;
}
const largestThatFits = once(() => largestStack(fixedPart, perFunction));
// The same in an app made by `cdk init`, whose cdk.json sets aws-cdk-lib's recommended flags.
const INIT_FLAGS = cxapi.CURRENTLY_RECOMMENDED_FLAGS;
const init1 = template((app) => libraryStack(app, 1), INIT_FLAGS);
const init3 = template((app) => libraryStack(app, 3), INIT_FLAGS);
const perFunctionInit = (resources(init3).length - resources(init1).length) / 2;
const largestThatFitsInit = once(() => largestStack(resources(init1).length - perFunctionInit, perFunctionInit, INIT_FLAGS));
/** The README's quick start (examples/readme/quickstart.ts), with or without those flags. */
function synthQuickStart(context?: Record<string, unknown>): any {
  return template((app) => {
    const stack = new Stack(app, 'QuickStart');
    new S3FilesMountedFunction(stack, 'Reader', {
      runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'),
    });
    return stack;
  }, context);
}
const quickStart = once(() => synthQuickStart());
const quickStartInit = once(() => synthQuickStart(INIT_FLAGS));
const [policy1] = ofType(lib1, 'AWS::S3Files::FileSystemPolicy');
const [policy50] = ofType(lib50, 'AWS::S3Files::FileSystemPolicy');
const policyChars = policyCharacters(policy1.Properties.Policy);

describe('README: numbers computed from the code', () => {
  test('the hostile-input case count is the number of cases in the test', () => {
    const said = find(readme, /\*\*Hostile input\*\* \(`test\/security\/hostile-input\.test\.ts`\): (\d+) bad configurations/, 'how many hostile inputs are tested');
    expect(Number(said[1])).toBe(hostileCases());
  });

  test('the template row of the performance table: resources, per function, the largest stack, the policy, the NFS rules', () => {
    const row = find(readme, /\| Template, 50 functions on one file system[^|]*\| (\d+) resources, (\d+) KiB \((\d+) resources and ([\d.]+) KB per function[^)]*\); largest that fits one stack: (\d+) functions[^|]*file-system policy stays at ([\d,]+) of 20,000 characters[^|]*at (\d+) of 60 inbound rules/,
      'the template row');
    expect(Number(row[1])).toBe(resources(lib50).length);
    expect(Number(row[3])).toBe(perFunction);
    expect(Number(row[5])).toBe(largestThatFits());
    expect(num(row[6])).toBe(policyChars);
    // one rule on the mount-target group, whatever the count
    expect(Number(row[7])).toBe(ofType(lib50, 'AWS::EC2::SecurityGroupIngress').filter((r) => r.Properties.FromPort === 2049).length);
    // bytes: the file `cdk deploy` uploads, which depends on every string in the library, so within 2 %
    const bytes = (n: number) => {
      const app = new App();
      const stack = libraryStack(app, n);
      const assembly = app.synth();
      return fs.statSync(assembly.getStackByName(stack.stackName).templateFullPath).size;
    };
    const [b1, b50] = [bytes(1), bytes(50)];
    expect(Math.abs(Number(row[2]) - b50 / 1024) / (b50 / 1024)).toBeLessThan(0.02);
    expect(Math.abs(Number(row[4]) - (b50 - b1) / 49 / 1000)).toBeLessThan(0.1);
  }, 300_000);

  test('the file-system policy does not grow with the clients, and its statement count is the one stated', () => {
    expect(policyCharacters(policy50.Properties.Policy)).toBe(policyChars);
    const said = find(readme, /The file-system policy \((\d+) statements\)/, 'the policy\'s statement count');
    expect(policy1.Properties.Policy.Statement).toHaveLength(Number(said[1]));
    expect(policy1.Properties.Policy.Statement.map((s: any) => s.Sid)).toEqual(['DenyInsecureTransport', 'DenyMountsWithoutAccessPoint']);
  });

  test('the capacity paragraph: functions per stack and resources per function, bare and with cdk init\'s flags', () => {
    const said = find(readme, /A stack holds (\d+) functions sharing one access\s+point \((\d+) resources each;\s+(\d+) functions of (\d+) resources in an app made by `cdk init`/, 'the functions per stack');
    expect([Number(said[1]), Number(said[2])]).toEqual([largestThatFits(), perFunction]);
    expect([Number(said[3]), Number(said[4])]).toEqual([largestThatFitsInit(), perFunctionInit]);
  });

  test('the quick start\'s resource count, bare and in an app made by cdk init', () => {
    const said = find(readme, /\((\d+) resources in all, besides the `CDKMetadata` that `cdk synth` adds; (\d+) in an app made by\s+`cdk init`, whose feature flags add a log group to each of the (\w+) functions/, 'the quick start\'s resources');
    // (the bare count is also the example program's, test/readme.test.ts: this copy of it is the same app)
    expect([Number(said[1]), Number(said[2])]).toEqual([resources(quickStart()).length, resources(quickStartInit()).length]);
    const logGroups = ofType(quickStartInit(), 'AWS::Logs::LogGroup').length;
    expect(['one', 'two', 'three', 'four', 'five', 'six', 'seven'][logGroups - 1]).toBe(said[3]);
    expect(ofType(quickStart(), 'AWS::Logs::LogGroup')).toHaveLength(0);
  }, 120_000);

  test('file systems per stack: the stated count fits, one more is a synth error; with RETAIN the resource limit binds first', () => {
    const said = find(readme, /a stack holds about (\d+) `DESTROY` file systems with created buckets\s+\((\d+) or (\d+): the policies name/, 'the file systems per stack');
    const build = (n: number, removalPolicy: RemovalPolicy) => () => template((app) => {
      const stack = new Stack(app, `Fs${n}${removalPolicy}`);
      const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
      for (let i = 0; i < n; i++) new S3FilesFileSystem(stack, `Files${i}`, { vpc, removalPolicy }).addAccessPoint('Ap', { path: '/lambda' });
      return stack;
    });
    const [n, low, high] = [Number(said[1]), Number(said[2]), Number(said[3])];
    expect(n).toBe(low);
    // the lower count fits whatever the names (these are longer than the README's); past the higher one never does
    expect(build(low, RemovalPolicy.DESTROY)).not.toThrow();
    expect(build(high + 1, RemovalPolicy.DESTROY)).toThrow(/IAM allows at most 10240/);
    expect(readme).toMatch(/with `RETAIN`, CloudFormation's 500 resources bind first/);
    expect(build(2 * n, RemovalPolicy.RETAIN)).toThrow(/greater than allowed maximum of 500/);
    expect(build(2 * n, RemovalPolicy.RETAIN)).not.toThrow(/IAM allows/);
  }, 300_000);

  test('the quick start\'s custom resources are the three the paragraph names, and aws-cdk-lib\'s for the bucket\'s EventBridge delivery', () => {
    expect(readme).toMatch(/three custom resources \(mount targets\s+available, the delete guard and the bucket cleaner\)/);
    expect(readme).toMatch(/as the bucket has `eventBridgeEnabled`, aws-cdk-lib's bucket-notifications custom\s+resource with its policy on the bucket and, once per stack, its handler function and role/);
    expect([...new Set(resources(lib1).map((r) => r.Type).filter((t) => t.startsWith('Custom::')))].sort())
      .toEqual(['Custom::S3BucketNotifications', 'Custom::S3FilesBucketCleaner', 'Custom::S3FilesDeleteGuard', 'Custom::S3FilesMountTargetsAvailable']);
  });

  test('what eventBridgeEnabled adds to a stack: the resources and bytes "Things to know" states', () => {
    const said = find(readme, /once per stack: (\d+) resources and about ([\d.]+) KB of template, ([\d.]+) KB of it the handler's inline\s+Python; each further created bucket adds (\d+) resources and about ([\d.]+) KB/, 'what the notifications add');
    const build = (buckets: number, eventBridge: boolean) => {
      const app = new App();
      const stack = new Stack(app, 'EventBridgeCount');
      const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
      for (let i = 0; i < buckets; i++) new S3FilesFileSystem(stack, `Files${i}`, { vpc });
      if (!eventBridge) {
        // the same stack without aws-cdk-lib's notifications: what the library made before it set eventBridgeEnabled
        for (const c of stack.node.findAll()) {
          if (c.node.id === 'Notifications' || c.node.id.startsWith('BucketNotificationsHandler')) c.node.scope!.node.tryRemoveChild(c.node.id);
        }
      }
      const artifact = app.synth().getStackByName('EventBridgeCount');
      return { resources: Object.values<any>(artifact.template.Resources), bytes: fs.statSync(artifact.templateFullPath).size };
    };
    const [off1, on1, off2, on2] = [build(1, false), build(1, true), build(2, false), build(2, true)];
    const added = (on: typeof on1, off: typeof off1) => ({ resources: on.resources.length - off.resources.length, bytes: on.bytes - off.bytes });
    const [one, two] = [added(on1, off1), added(on2, off2)];
    const handler = on1.resources.find((r) => r.Type === 'AWS::Lambda::Function' && /Custom::S3BucketNotifications/.test(r.Properties.Description));
    expect(Number(said[1])).toBe(one.resources);
    expect(Math.abs(Number(said[2]) - one.bytes / 1000)).toBeLessThan(0.1);
    expect(Math.abs(Number(said[3]) - handler.Properties.Code.ZipFile.length / 1000)).toBeLessThan(0.1);
    expect(Number(said[4])).toBe(two.resources - one.resources);
    expect(Math.abs(Number(said[5]) - (two.bytes - one.bytes) / 1000)).toBeLessThan(0.1);
  });
});

describe('README: the performance rows are those of benchmarks/RESULTS.md', () => {
  const handlers = table(results, '## Handlers');
  const synth = table(results, '## Synth');
  const wait = table(results, '## Deploy wait');

  test('handler files/s and ratios (the ratio of the total times, rounded to the unit)', () => {
    const row = find(readme, /20 files: ([\d,]+) vs (\d+) \((\d+)×[^)]*\); 1,000: ([\d,]+) vs (\d+) \((\d+)×[^)]*\); 10,000: ([\d,]+) vs (\d+) \((\d+)×/, 'the handler row');
    handlers.forEach((r, i) => {
      const [fsRate, apiRate, ratio] = [num(row[1 + 3 * i]), num(row[2 + 3 * i]), num(row[3 + 3 * i])];
      expect([fsRate, apiRate]).toEqual([num(r[2]), num(r[3])]);
      expect(ratio).toBe(Math.round(nums(r[7])[0] / nums(r[6])[0]));
    });
  });

  test('synth ratio and the deploy-wait figures', () => {
    const row = (n: string) => synth.find((r) => r[0] === n)!;
    const said = find(readme, /\| ([\d.]+) at 50 functions \(([\d,]+) vs ([\d,]+) ms\) and ([\d.]+) at 200 \(([\d,]+) vs ([\d,]+) ms\)/, 'the synth row');
    expect(said.slice(1, 4)).toEqual([row('50')[3].replace(/\*/g, ''), row('50')[1], row('50')[2]]);
    expect(said.slice(4, 7)).toEqual([row('200')[3].replace(/\*/g, ''), row('200')[1], row('200')[2]]);
    const intervals = wait.find((r) => r[0].startsWith('Delay (poll intervals)'))!;
    const calls = wait.find((r) => r[0].startsWith('API calls per deployment'))!;
    const w = find(readme, /p50 ([\d.]+), max ([\d.]+) poll intervals[^;]*; (\d+)–(\d+) API calls/, 'the deploy-wait row');
    expect([w[1], w[2], w[3], w[4]]).toEqual([intervals[2], intervals[5], calls[1], calls[5]]);
  });

  test('a published measurement: 3,394 ms vs 664 ms is the 5.1× RESULTS.md quotes', () => {
    const said = find(readme, /took ([\d,]+) ms through the S3 API and\s+([\d,]+) ms through S3 Files/, 'the published measurement');
    const quoted = find(results, /gave ([\d.]+)× for 20 files/, 'the published ratio');
    expect((num(said[1]) / num(said[2])).toFixed(1)).toBe(quoted[1]);
  });
});

describe('benchmarks/RESULTS.md: its arithmetic', () => {
  test('handlers: files/s and each ratio follow from the total times as written', () => {
    const rows = table(results, '## Handlers');
    expect(rows).toHaveLength(3);
    for (const [files, , fsRate, apiRate, ratio, , fsTotal, apiTotal] of rows) {
      expect(ratioConsistent(ratio, apiTotal, fsTotal)).toBe(true);
      expect(ratioConsistent(fsRate, String(num(files) * 1000), fsTotal)).toBe(true);
      expect(ratioConsistent(apiRate, String(num(files) * 1000), apiTotal)).toBe(true);
    }
  });

  test('phases: each speed-up is the quotient of the medians', () => {
    const rows = table(results, '**10000 files × 1 runs**');
    expect(rows.length).toBeGreaterThan(5);
    for (const [, api, files, speedUp] of rows) {
      expect(ratioConsistent(speedUp, api.split(' ')[0], files.split(' ')[0])).toBe(true);
    }
  });

  test('synth: ratios, the linear fit and the slope ratio follow from the medians (CPU ms, library against the floor)', () => {
    const rows = table(results, '## Synth');
    for (const [, library, hand, ratio] of rows) expect(ratioConsistent(ratio, library, hand)).toBe(true);
    const fit = (ys: number[]) => {
      const xs = rows.map((r) => num(r[0]));
      const mx = xs.reduce((a, b) => a + b) / xs.length;
      const my = ys.reduce((a, b) => a + b) / ys.length;
      const b = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
      const a = my - b * mx;
      const r2 = 1 - xs.reduce((s, x, i) => s + (ys[i] - a - b * x) ** 2, 0) / ys.reduce((s, y) => s + (y - my) ** 2, 0);
      return { a, b, r2 };
    };
    const said = find(results, /library a = (\d+) ms, b = ([\d.]+) ms\/function, R² = ([\d.]+); floor a = (\d+) ms, b = ([\d.]+) ms\/function, R² = ([\d.]+)\. Per-function slope ratio ([\d.]+)/, 'the linear fit');
    const lib = fit(rows.map((r) => num(r[1])));
    const hand = fit(rows.map((r) => num(r[2])));
    // from medians rounded to the millisecond: a within 1 ms, b within 0.05, R² within 0.002
    expect(Math.abs(lib.a - num(said[1]))).toBeLessThan(1);
    expect(Math.abs(lib.b - num(said[2]))).toBeLessThan(0.06);
    expect(Math.abs(lib.r2 - num(said[3]))).toBeLessThan(0.002);
    expect(Math.abs(hand.a - num(said[4]))).toBeLessThan(1);
    expect(Math.abs(hand.b - num(said[5]))).toBeLessThan(0.06);
    expect(Math.abs(hand.r2 - num(said[6]))).toBeLessThan(0.002);
    expect(ratioConsistent(said[7], said[2], said[5])).toBe(true);
    // no verdict on linearity from four noisy points
    expect(results).not.toMatch(/Growth is (not clearly )?linear/);
  });

  test('deploy wait: poll intervals are the seconds over the 10 s interval', () => {
    const rows = table(results, '## Deploy wait');
    const seconds = rows.find((r) => r[0].startsWith('Delay after last resource'))!;
    const intervals = rows.find((r) => r[0].startsWith('Delay (poll intervals)'))!;
    for (let i = 1; i < seconds.length; i++) expect(ratioConsistent(intervals[i], seconds[i], '10.0000')).toBe(true);
    expect(results).toMatch(/follows from the scripted availability times/);
  });

  test('concurrency sweep: files/s is 1,000 over the median', () => {
    for (const [, total, rate] of table(results, '### processor-s3files concurrency sweep')) {
      expect(ratioConsistent(rate, '1000000', total.split(' ')[0])).toBe(true);
    }
  });

  test('templates: the resource counts are those of the current code, and the derived figures follow', () => {
    const rows = table(results, '## Templates');
    const counts = rows.map((r) => [num(r[0]), num(r[1]), num(r[4])]);
    const library = (n: number) => resources(template((app) => libraryStack(app, n))).length;
    const hand = (n: number) => resources(template((app) => handWiredStack(app, n))).length;
    for (const [n, lib, hw] of counts) expect([n, library(n), hand(n)]).toEqual([n, lib, hw]);
    const said = find(results, /Per added function: library ([\d.]+) resources \(fixed part (\d+)\), hand-wired ([\d.]+)/, 'the per-function resources');
    expect([num(said[1]), num(said[2])]).toEqual([perFunction, fixedPart]);
    expect(num(said[3])).toBe((hand(50) - hand(1)) / 49);
    const headroom = find(results, /50 functions on one file system: (\d+)\/500 resources \(headroom (\d+)\)/, 'the headroom');
    expect([num(headroom[1]), num(headroom[2])]).toEqual([resources(lib50).length, 500 - resources(lib50).length]);
    const largest = find(results, /Largest count that fits one stack: \*\*(\d+)\*\* functions, found by synthesis: \d+ functions = (\d+) resources \(fits\); \d+ = (\d+) resources/, 'the largest stack');
    const n = largestThatFits();
    expect([num(largest[1]), num(largest[2]), num(largest[3])]).toEqual([n, fixedPart + n * perFunction, fixedPart + (n + 1) * perFunction]);
    const summary = find(results, /50 functions fit one stack \(< 500 resources, < 1 MB\) \| (\d+) resources/, 'the summary row');
    expect(num(summary[1])).toBe(resources(lib50).length);
  }, 300_000);

  test('the file-system policy figure is the one computed the way S3 Files counts', () => {
    const said = find(results, /the file-system policy is ([\d,]+) of 20,000 characters/, 'the policy size');
    expect(num(said[1])).toBe(policyChars);
  });

  test('DependsOn: the counts at 50 functions, and both grow linearly', () => {
    const said = find(results, /at 50 functions the library template has (\d+) `DependsOn` entries \(hand-wired (\d+)\)/, 'the DependsOn counts');
    expect([num(said[1]), num(said[2])]).toEqual([dependsOn(lib50), dependsOn(hand50)]);
    const per = find(results, /hand-wired: (\d+) per function at every size/, 'the hand-wired growth');
    expect(dependsOn(hand50) - dependsOn(hand25)).toBe(25 * num(per[1]));
    expect(dependsOn(hand25)).toBe(25 * num(per[1]));
    expect(dependsOn(lib50) - dependsOn(lib25)).toBe(25 * ((dependsOn(lib50) - dependsOn(lib1)) / 49));
    expect(results).not.toMatch(/n²/);
  }, 120_000);
});

describe('every default the README states is the synthesized one', () => {
  function synthDefault(props: Record<string, unknown> = {}) {
    const app = new App();
    const stack = new Stack(app, 'Defaults');
    const fn = new S3FilesMountedFunction(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {};'), ...props,
    });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: fn.s3FileSystem });
    return { t: app.synth().getStackByName('Defaults').template, fn };
  }
  const { t } = synthDefault();
  const one = (type: string) => {
    const all = ofType(t, type);
    if (all.length !== 1) throw new Error(`${all.length} ${type}`);
    return all[0];
  };
  const fnResource = () => ofType(t, 'AWS::Lambda::Function').find((r) => r.Properties.FileSystemConfigs)!;
  const statements = () => ofType(t, 'AWS::IAM::Policy').flatMap((p) => p.Properties.PolicyDocument.Statement);
  const actions = () => statements().flatMap((s) => [s.Action].flat());
  const alarm = (metric: string) => ofType(t, 'AWS::CloudWatch::Alarm').find((a) => a.Properties.MetricName === metric)!.Properties;

  /** Prop -> [the default cell as the README writes it, a check of the synthesized default]. */
  const MOUNTED_FUNCTION: Record<string, [string, () => void]> = {
    's3FileSystem': ['a new one', () => expect(ofType(t, 'AWS::S3Files::FileSystem')).toHaveLength(1)],
    'bucket': ['a new hardened bucket', () => expect(one('AWS::S3::Bucket').Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' })],
    's3FileSystemOptions': ['', () => undefined],
    'mountPath': ['`/mnt/s3files`', () => {
      expect(fnResource().Properties.FileSystemConfigs[0].LocalMountPath).toBe('/mnt/s3files');
      expect(fnResource().Properties.Environment.Variables.MOUNT_PATH).toBe('/mnt/s3files');
    }],
    'accessPoint / accessPointOptions': ['a new access point at `/lambda`', () => {
      expect(ofType(t, 'AWS::S3Files::AccessPoint')).toHaveLength(1);
      expect(one('AWS::S3Files::AccessPoint').Properties.RootDirectory.Path).toBe('/lambda');
    }],
    'readOnly': ['`false`', () => expect(actions()).toContain('s3files:ClientWrite')],
    'rootAccess': ['`false`', () => expect(actions()).not.toContain('s3files:ClientRootAccess')],
    'directS3Read': ['`AUTO` with grant', () => {
      expect(fnResource().Properties.FileSystemConfigs[0].S3FilesConfig).toEqual({ DirectS3Read: 'AUTO' });
      expect(statements().filter((s) => JSON.stringify(s.Action) === '["s3:GetObject","s3:GetObjectVersion"]')).toHaveLength(1);
    }],
  };
  const FILE_SYSTEM: Record<string, [string, () => void]> = {
    vpc: ['required', () => undefined],
    vpcSubnets: ['private subnets', () => expect(ofType(t, 'AWS::S3Files::MountTarget')).toHaveLength(2)],
    bucket: ['a new hardened bucket', () => expect(one('AWS::S3::Bucket').Properties.PublicAccessBlockConfiguration.BlockPublicPolicy).toBe(true)],
    prefix: ['`\'\'`', () => expect(one('AWS::S3Files::FileSystem').Properties.Prefix).toBeUndefined()],
    bucketEncryptionKey: ['the bucket\'s `encryptionKey`', () => expect(one('AWS::S3::Bucket').Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({ SSEAlgorithm: 'AES256' })],
    fileSystemEncryptionKey: ['an AWS owned key', () => expect(one('AWS::S3Files::FileSystem').Properties.KmsKeyId).toBeUndefined()],
    mountTargetIpAddressType: ['`IPV4_ONLY`, the service\'s', () => ofType(t, 'AWS::S3Files::MountTarget').forEach((m) => expect(m.Properties.IpAddressType).toBeUndefined())],
    importDataRules: ['the service\'s (prefix `\'\'`, 128 KiB, `ON_DIRECTORY_FIRST_ACCESS`)', () => {
      expect(one('AWS::S3Files::FileSystem').Properties.SynchronizationConfiguration).toBeUndefined();
      // with only the expiry set, the written configuration carries the service's default rule
      const withExpiry = synthDefault({ s3FileSystemOptions: { expireAfterLastAccess: Duration.days(7) } }).t;
      expect(ofType(withExpiry, 'AWS::S3Files::FileSystem')[0].Properties.SynchronizationConfiguration.ImportDataRules)
        .toEqual([{ Prefix: '', SizeLessThan: 131072, Trigger: 'ON_DIRECTORY_FIRST_ACCESS' }]);
    }],
    expireAfterLastAccess: ['the service\'s; 30 days once `importDataRules` is set', () => {
      expect(one('AWS::S3Files::FileSystem').Properties.SynchronizationConfiguration).toBeUndefined();
      // setting only a rule writes a configuration, whose one expiration rule is then 30 days
      const withRule = synthDefault({ s3FileSystemOptions: { importDataRules: [{ trigger: ImportTrigger.ON_FILE_ACCESS }] } }).t;
      expect(ofType(withRule, 'AWS::S3Files::FileSystem')[0].Properties.SynchronizationConfiguration).toEqual({
        ImportDataRules: [{ Prefix: '', SizeLessThan: 131072, Trigger: 'ON_FILE_ACCESS' }],
        ExpirationDataRules: [{ DaysAfterLastAccess: 30 }],
      });
    }],
    noncurrentVersionExpiration: ['30 days', () => expect(one('AWS::S3::Bucket').Properties.LifecycleConfiguration.Rules[0].NoncurrentVersionExpiration).toEqual({ NoncurrentDays: 30 })],
    securityGroup: ['a new one', () => expect(ofType(t, 'AWS::EC2::SecurityGroup').length).toBeGreaterThanOrEqual(2)],
    allowMountsWithoutAccessPoint: ['`false`', () => expect(one('AWS::S3Files::FileSystemPolicy').Properties.Policy.Statement.map((s: any) => s.Sid)).toContain('DenyMountsWithoutAccessPoint')],
    acceptBucketWarning: ['`false`', () => expect(one('AWS::S3Files::FileSystem').Properties.AcceptBucketWarning).toBeUndefined()],
    removalPolicy: ['`RETAIN`', () => {
      expect([one('AWS::S3Files::FileSystem').DeletionPolicy, one('AWS::S3::Bucket').DeletionPolicy]).toEqual(['Retain', 'Retain']);
      expect(one('Custom::S3FilesDeleteGuard').Properties.DeleteFileSystem).toBe('false');
      expect(one('Custom::S3FilesBucketCleaner').Properties.EmptyOnDelete).toBe('false');
    }],
    availabilityTimeout: ['20 min', () => {
      expect(one('Custom::S3FilesMountTargetsAvailable').Properties.TimeoutSeconds).toBe(String(Duration.minutes(20).toSeconds()));
      expect(one('Custom::S3FilesMountTargetsAvailable').Properties.ServiceTimeout).toBe(String(Duration.minutes(25).toSeconds()));
    }],
  };

  /** The `| prop | default | ... |` rows of the table under `heading`. */
  const defaults = (heading: string) => new Map(table(readme, heading).map((r) => [r[0].replace(/`/g, ''), r[1]]));

  test.each([
    ['### `S3FilesMountedFunction` (extends `lambda.Function`)', MOUNTED_FUNCTION],
    ['### `S3FilesFileSystem`', FILE_SYSTEM],
  ])('%s: each row\'s default is checked against the template', (heading, checks) => {
    const rows = defaults(heading);
    // every row has a check, and every check a row
    expect([...rows.keys()].sort()).toEqual(Object.keys(checks).sort());
    for (const [prop, [cell, check]] of Object.entries(checks)) {
      expect(`${prop}: ${rows.get(prop)}`).toBe(`${prop}: ${cell}`);
      check();
    }
  }, 120_000);

  test('S3FilesAccessPoint: path required (the L3\'s own access point: /lambda), POSIX user 1000:1000, permissions 755', () => {
    // GIVEN what the docs say of the class
    const said = find(readme, /`path` \(required;[^)]*the L3's own\s+access point defaults to `([^`]+)`\),\s+`posixUser` \(default `\{ uid: (\d+), gid: (\d+) \}`\), `createPermissions` \(default `'(\d+)'`/,
      'the access point defaults');
    // THEN the class itself takes no default path
    const stack = new Stack(new App(), 'Ap');
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Fs', { fileSystemId: 'fs-0123456789abcdef0' });
    expect(() => new S3FilesAccessPoint(stack, 'NoPath', { fileSystem } as any)).toThrow(/invalid path undefined: an access point exposes one directory/);
    // AND its POSIX user and permissions are the stated ones
    new S3FilesAccessPoint(stack, 'Plain', { fileSystem, path: '/plain' });
    const [plain] = ofType(Template.fromStack(stack).toJSON(), 'AWS::S3Files::AccessPoint');
    expect(plain.Properties).toMatchObject({
      PosixUser: { Uid: said[2], Gid: said[3] },
      RootDirectory: { Path: '/plain', CreationPermissions: { OwnerUid: said[2], OwnerGid: said[3], Permissions: said[4] } },
    });
    // AND the L3's own access point is at the stated path
    expect(one('AWS::S3Files::AccessPoint').Properties.RootDirectory.Path).toBe(said[1]);
  });

  test('S3FilesMonitoring: the thresholds and periods the README names', () => {
    const said = find(readme, /`pendingExportsThreshold` \(([\d,]+)\) or export age above `exportAgeThreshold` \((\d+) minutes\) for\s+`evaluationPeriods` \((\d+)\) periods of (\d+) minutes, and client connections above\s+`clientConnectionsThreshold` \(([\d,]+) of the ([\d,]+) allowed\)/, 'the monitoring defaults');
    expect([alarm('PendingExports').Threshold, alarm('ExportAge').Threshold, alarm('PendingExports').EvaluationPeriods, alarm('ExportAge').Period, alarm('ClientConnections').Threshold])
      .toEqual([num(said[1]), num(said[2]) * 60, num(said[3]), num(said[4]) * 60, num(said[5])]);
  });

  test('the L3\'s VPC: isolated subnets in two AZs, an S3 gateway endpoint, no NAT', () => {
    expect(readme).toMatch(/Without `vpc`, the L3 makes a VPC with isolated subnets in two AZs and a free S3 gateway endpoint/);
    expect(ofType(t, 'AWS::EC2::Subnet')).toHaveLength(2);
    expect(ofType(t, 'AWS::EC2::NatGateway')).toHaveLength(0);
    expect(ofType(t, 'AWS::EC2::InternetGateway')).toHaveLength(0);
    expect(one('AWS::EC2::VPCEndpoint').Properties.VpcEndpointType ?? 'Gateway').toBe('Gateway');
  });

  test('direct reads: the README says AUTO by default, and the low-memory warning only for an explicit AUTO', () => {
    expect(readme).toMatch(/Direct reads default to the service's `AUTO`/);
    expect(readme).not.toMatch(/Direct reads default to `ENABLED`/);
    const warnings = (props: Record<string, unknown>) => {
      const app = new App();
      const stack = new Stack(app, 'W');
      new S3FilesMountedFunction(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('x'), ...props });
      return app.synth().getStackByName('W').messages.filter((m) => /autoDirectReadLowMemory|directS3Read is AUTO/.test(String(m.entry.data))).length;
    };
    expect(warnings({})).toBe(0);
    expect(warnings({ directS3Read: lambda.DirectS3Read.auto() })).toBe(1);
  });
});
