/**
 * What `npx projen bench` (run-all.ts) measures and writes to benchmarks/results.json, and what
 * format.ts renders into benchmarks/RESULTS.md. Values are as measured, unrounded: every ratio,
 * fit and rate in RESULTS.md is computed from them by the formatter.
 */
import type { ProfileResults } from './profile';
import type { Summary } from '../integ/handlers/shared/stats';

/** min, p50, p90, p99, max and mean of one metric over the simulated deployments. */
export interface Distribution {
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export interface RunInfo {
  /** The date the run started, YYYY-MM-DD. */
  readonly date: string;
  /** The commit the run measured (short hash), with "+" when the work tree had changes. */
  readonly commit: string;
  /** Run with --quick (no 10,000-file size, fewer repeats). */
  readonly quick: boolean;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly memoryBytes: number;
    readonly node: string;
    readonly platform: string;
    readonly release: string;
  };
  readonly awsCdkLib: string;
  /** Seconds each part took, in the order they ran. */
  readonly partSeconds: Record<string, number>;
  /** Seconds of the whole run, start to RESULTS.md. */
  readonly totalSeconds: number;
}

/**
 * A section measured on its own after the run (`run-all.ts --only <section>`): when and on what,
 * as a phrase that completes "Measured apart from the run above: ...".
 */
export interface Apart {
  readonly measuredApart?: string;
}

export interface SynthSide {
  /** Medians over the repeats: the whole synth (wall; CPU of the process), building the tree, app.synth(). */
  readonly ms: number;
  /** Absent in runs recorded before CPU time was measured. */
  readonly cpuMs?: number;
  readonly buildMs: number;
  readonly synthMs: number;
  /** Bytes of the template file (the same every repeat). */
  readonly bytes: number;
}

export interface SynthRow {
  /** Functions in the stack. */
  readonly n: number;
  readonly library: SynthSide;
  readonly handWired: SynthSide;
  /**
   * The library's fastest repeat ÷ the hand-wired fastest repeat, computed from the unrounded
   * samples when measured (the samples themselves are not kept).
   */
  readonly fastestRatio?: number;
}

export interface SynthResults extends Apart {
  /** Interleaved repeats per size. */
  readonly reps: number;
  /** With aws-cdk-lib's CloudFormation validation off (what the library's own code costs). */
  readonly rows: SynthRow[];
  /** The same with it on, as users synthesize (absent in older runs). */
  readonly validated?: { readonly reps: number; readonly rows: SynthRow[] };
}

export interface TemplateSide {
  readonly resources: number;
  /** Bytes of the template file `cdk deploy` uploads (indented JSON). */
  readonly bytes: number;
  /** Characters of the file-system policy as S3 Files counts them (compact JSON, ARN in place). */
  readonly policyChars: number;
  /** Inbound NFS (2049) rules. */
  readonly nfsInboundRules: number;
  /** `DependsOn` entries over the whole template. */
  readonly dependsOn: number;
  /** `DependsOn` entries from the functions to security-group ingress rules. */
  readonly functionIngressDependsOn: number;
}

export interface TemplateRow {
  readonly n: number;
  readonly library: TemplateSide;
  readonly handWired: TemplateSide;
}

export interface TemplateResults extends Apart {
  readonly rows: TemplateRow[];
  /** The largest library stack that synthesizes within every limit, and the next size up. */
  readonly largest: {
    readonly fits: {
      readonly n: number; readonly resources: number; readonly bytes: number; readonly policyChars: number; readonly nfsInboundRules: number;
    };
    /** Resources of the next size; `binding` names the limits it breaks. */
    readonly over: { readonly n: number; readonly resources: number; readonly binding: string[] };
  };
}

export interface BundleRow {
  /** Asset directory under assets/lambda/ or assets/integ/handlers/. */
  readonly name: string;
  readonly shipped: boolean;
  readonly bytes: number;
  /** Median cold `require` time in a fresh node process. */
  readonly requireMs: number;
}

export interface BundleResults extends Apart {
  readonly reps: number;
  readonly rows: BundleRow[];
}

export interface DeployWaitResults extends Apart {
  readonly deployments: number;
  readonly seed: number;
  readonly queryIntervalMs: number;
  /** The scripted availability times, [earliest, latest] after the waiter starts. */
  readonly mountTargetAvailableMs: [number, number];
  readonly accessPointAvailableMs: [number, number];
  readonly mountTargetsPerFileSystem: [number, number];
  /** The fixed sleep compared with (Terraform-style). */
  readonly fixedWaitMs: number;
  /** Last resource available -> waiter complete. */
  readonly delayMs: Distribution;
  /** Waiter start -> complete. */
  readonly totalWaitMs: Distribution;
  readonly polls: Distribution;
  readonly apiCalls: Distribution;
  readonly peakCallsPerMinute: Distribution;
  /** Real handler time per isComplete poll, on loopback. */
  readonly handlerMsPerPoll: Distribution;
  /** Deployments that completed within one poll interval of readiness. */
  readonly withinOneInterval: number;
  /** Deployments not ready when the fixed wait would have ended. */
  readonly fixedWaitRaces: number;
}

export type PhaseSummaries = Partial<Record<'listMs' | 'claimMs' | 'readMs' | 'processMs' | 'writeMs' | 'renameMs' | 'totalMs' | 'wallMs', Summary>>;

export interface HandlerSize {
  readonly files: number;
  readonly runs: number;
  /** The benchmark call's wall clock (seeding, both processors, verification, cleanup). */
  readonly wallSeconds: number;
  /** Median in-handler total of each processor. */
  readonly totalMs: { readonly s3files: number; readonly s3api: number };
  /**
   * The lowest and highest, over the runs, of one run's S3 API total ÷ the same run's S3 Files
   * total (measured back to back), computed from the unrounded totals when measured.
   */
  readonly runRatio: { readonly min: number; readonly max: number };
  /** min/median/max per phase over the runs; absent where not recorded. */
  readonly phases?: { readonly s3api: PhaseSummaries; readonly s3files: PhaseSummaries };
}

export interface HandlerResults extends Apart {
  readonly minWords: number;
  readonly maxWords: number;
  readonly seed: number;
  readonly seedVia: string;
  readonly sizes: HandlerSize[];
}

export interface SweepResults extends Apart {
  readonly files: number;
  readonly repeats: number;
  /** processor-s3files' default when measured. */
  readonly defaultConcurrency: number;
  readonly levels: { readonly concurrency: number; readonly totalMs: Summary }[];
}

/** What the text compares across runs, kept from each earlier results.json. */
export interface EarlierRun {
  readonly commit: string;
  readonly date: string;
  /**
   * Median synth ms of both sides at the largest size; with `cpu`, CPU ms against the floor of the
   * same resources (runs without it measured wall time against another baseline: not comparable).
   */
  readonly synth: { readonly n: number; readonly libraryMs: number; readonly handWiredMs: number; readonly cpu?: boolean };
  /** Median in-handler totals per size. */
  readonly handlers: { readonly files: number; readonly s3filesMs: number; readonly s3apiMs: number }[];
  /** Where these values come from, when not simply from that run's results.json. */
  readonly note?: string;
}

export interface BenchResults {
  /** How these values were obtained, where that is not simply "measured by run-all.ts" (not rendered). */
  readonly about?: string[];
  readonly run: RunInfo;
  readonly synth: SynthResults;
  readonly templates: TemplateResults;
  readonly bundles: BundleResults;
  readonly deployWait: DeployWaitResults;
  readonly handlers: HandlerResults;
  readonly sweep: SweepResults;
  /** Absent in runs recorded before the profile was taken. */
  readonly profile?: ProfileResults;
  /** Oldest first. */
  readonly earlierRuns: EarlierRun[];
}
