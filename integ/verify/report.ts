import { ASSERTIONS, ASSUMPTIONS } from './catalogue';
import type { Leftover } from './leftovers';
import type { AssertionOutcome, Benchmarks, Status } from './outcomes';

// The report of one `npx projen verify` run: report.json (for tools, and for the issue that sends
// it back) and report.md (for people), from the same record.

export interface RunRecord {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly region: string;
  readonly account?: string;
  readonly suites: readonly string[];
  readonly versions: Record<string, string>;
  /** Every catalogue assertion once (outcomes.complete). */
  readonly outcomes: readonly AssertionOutcome[];
  readonly benchmarks: Benchmarks;
  /** Seconds per phase, as measured. */
  readonly phases: ReadonlyArray<{ readonly phase: string; readonly seconds: number; readonly ok: boolean }>;
  readonly leftovers: readonly Leftover[];
  /** What failed outside the assertions (a deploy, a destroy), with the tool's words. */
  readonly errors: readonly string[];
}

export interface AssumptionVerdict {
  readonly id: string;
  readonly title: string;
  readonly status: Status;
  readonly assertions: ReadonlyArray<AssertionOutcome & { readonly confirmedWhen: string; readonly source: string; readonly suite: string }>;
}

/** An assumption is refuted by any refuted assertion, confirmed when every assertion that ran confirmed it. */
export function verdicts(outcomes: readonly AssertionOutcome[]): AssumptionVerdict[] {
  return ASSUMPTIONS.map((a) => {
    const assertions = ASSERTIONS.filter((s) => s.assumption === a.id).map((spec) => {
      const o = outcomes.find((x) => x.id === spec.id) ?? { id: spec.id, status: 'not run' as const };
      return { ...o, confirmedWhen: spec.confirmedWhen, source: spec.source, suite: spec.suite };
    });
    const status: Status = assertions.some((x) => x.status === 'refuted') ? 'refuted'
      : assertions.some((x) => x.status === 'confirmed') ? 'confirmed' : 'not run';
    return { id: a.id, title: a.title, status, assertions };
  });
}

export function reportJson(record: RunRecord): object {
  return {
    schema: 'cdk-s3files-lambda/verify-report@1',
    ...record,
    assumptions: verdicts(record.outcomes),
    summary: summary(record.outcomes),
  };
}

function summary(outcomes: readonly AssertionOutcome[]): Record<Status, number> {
  const count = (s: Status) => outcomes.filter((o) => o.status === s).length;
  return { 'confirmed': count('confirmed'), 'refuted': count('refuted'), 'not run': count('not run') };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const ms = (n: number | null | undefined) => (typeof n === 'number' ? `${Math.round(n).toLocaleString('en-US')} ms` : 'n/a');
const times = (n: number | null | undefined) => (typeof n === 'number' ? `${n.toFixed(2)}×` : 'n/a');

/** The benchmark rows in docs/performance.md's shape (`| What | Result |`). */
export function benchmarkRows(b: Benchmarks, deployWait?: unknown): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const p = b.processors;
  if (p) {
    rows.push([`Processor in AWS, S3 API vs S3 Files (${p.files} files × ${p.runs} runs, median total inside the handler)`,
      `${ms(p.s3api.phases.totalMs.median)} vs ${ms(p.s3files.phases.totalMs.median)} (${times(p.speedUp.totalMs)}; wall clock ${times(p.speedUp.wallMs)})`]);
    if (p.sync) rows.push(['Sync in AWS: write on the mount → HeadObject finds it; PutObject → the mount shows it', `${typeof p.sync.exportDelayMs === 'number' ? ms(p.sync.exportDelayMs) : p.sync.exportDelayMs}; ${typeof p.sync.importDelayMs === 'number' ? ms(p.sync.importDelayMs) : p.sync.importDelayMs}`]);
  }
  const c = b.coldStart;
  if (c) {
    rows.push([`Cold start in AWS, mounted vs unmounted twin (${c.samples} samples, median init)`,
      `${ms(c.mounted.initMs.median)} vs ${ms(c.unmounted.initMs.median)} (ratio ${times(c.ratio.initMs)}; first invoke ${times(c.ratio.durationMs)})`]);
  }
  for (const size of b.directRead?.sizes ?? []) {
    rows.push([`Direct reads in AWS, ${size.size} files (${size.bytesPerFile.toLocaleString('en-US')} bytes; read speed-up over DISABLED)`,
      `ENABLED ${times(size.readSpeedUp.ENABLED)}, AUTO ${times(size.readSpeedUp.AUTO)}`]);
  }
  if (deployWait !== undefined) rows.push(['Deploy wait in AWS: last mount target `available` → waiter done', cell(JSON.stringify(deployWait))]);
  return rows;
}

function evidenceText(o: AssertionOutcome): string {
  const parts = [o.note, o.evidence === undefined ? undefined : JSON.stringify(o.evidence)].filter((x): x is string => !!x);
  const text = parts.join(' — ');
  return cell(text.length > 600 ? `${text.slice(0, 600)}…` : text);
}

export function reportMarkdown(record: RunRecord): string {
  const v = verdicts(record.outcomes);
  const s = summary(record.outcomes);
  const out: string[] = [
    '# cdk-s3files-lambda verification report', '',
    `Region ${record.region}${record.account ? `, account ${record.account}` : ''}; ${record.startedAt} → ${record.finishedAt}; suites: ${record.suites.join(', ')}.`,
    `Versions: ${Object.entries(record.versions).map(([k, x]) => `${k} ${x}`).join(', ')}.`, '',
    `**${s.confirmed} confirmed, ${s.refuted} refuted, ${s['not run']} not run.**`, '',
    '## Assumptions', '',
    '| Assumption | Status | Assertions |', '|---|---|---|',
    ...v.map((a) => `| ${cell(a.title)} (\`${a.id}\`) | **${a.status}** | ${a.assertions.map((x) => `\`${x.id}\` ${x.status}`).join('; ')} |`),
    '', '## Assertions and evidence', '',
    '| Assertion | Status | Confirmed when | Evidence |', '|---|---|---|---|',
    ...v.flatMap((a) => a.assertions.map((x) => `| \`${x.id}\` | ${x.status} | ${cell(x.confirmedWhen)} | ${evidenceText(x)} |`)),
  ];
  const rows = benchmarkRows(record.benchmarks, record.outcomes.find((o) => o.id === 'waiter.within-one-poll')?.evidence);
  out.push('', '## Benchmarks', '');
  if (rows.length) out.push('| What | Result |', '|---|---|', ...rows.map(([w, r]) => `| ${cell(w)} | ${cell(r)} |`));
  else out.push('No benchmark ran.');
  for (const table of [record.benchmarks.processors?.table, record.benchmarks.coldStart?.table, record.benchmarks.directRead?.table]) {
    if (table) out.push('', table);
  }
  out.push('', '## Phases', '', '| Phase | Seconds | OK |', '|---|---|---|', ...record.phases.map((p) => `| ${cell(p.phase)} | ${p.seconds} | ${p.ok ? 'yes' : 'no'} |`));
  out.push('', '## Left behind', '');
  if (record.leftovers.length === 0) out.push('Nothing: no bucket, file system, access point, network interface, log group or Pod Identity association of this run remains.');
  else out.push('| What | Id | Remove with |', '|---|---|---|', ...record.leftovers.map((l) => `| ${l.kind} | ${cell(l.id)} | \`${cell(l.removeWith)}\` |`));
  if (record.errors.length) out.push('', '## Errors', '', ...record.errors.map((e) => `- ${cell(e)}`));
  out.push('', '## Send it back', '',
    'Open an issue with the "Verification report" template and attach `report.json` (it holds no credentials; it names',
    'your account id and region, which you may redact). A `refuted` line is the most useful thing you can send.');
  return out.join('\n') + '\n';
}

