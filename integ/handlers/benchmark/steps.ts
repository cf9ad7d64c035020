/**
 * Steps every benchmark mode shares: invoking a processor, waiting on the mount, checking results.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { lambdaClient } from '../shared/aws';
import { errorMessage, ProcessorResult } from '../shared/common';
import { mapPool } from '../shared/pool';
import { SeededText } from '../shared/seed-text';

export const SEED_CONCURRENCY = 16;

export type NamedText = SeededText & { name: string };

async function invoke(functionName: string, payload: object): Promise<{ result: ProcessorResult; wallMs: number }> {
  const t0 = performance.now();
  const res = await lambdaClient().send(new InvokeCommand({
    FunctionName: functionName,
    InvocationType: 'RequestResponse',
    Payload: Buffer.from(JSON.stringify(payload)),
  }));
  const wallMs = performance.now() - t0;
  const text = res.Payload ? Buffer.from(res.Payload).toString('utf8') : '';
  if (res.FunctionError) {
    let message = text;
    try {
      message = JSON.parse(text).errorMessage ?? text;
    } catch {
      // keep the raw payload
    }
    throw new Error(`Invoking ${functionName} failed (${res.FunctionError}): ${message}`);
  }
  const result = JSON.parse(text) as ProcessorResult;
  if (!result || typeof result.timings !== 'object') {
    throw new Error(`${functionName} returned ${text.slice(0, 200)}, not a processor result; check the function names.`);
  }
  return { result, wallMs };
}

export function checkMeta(where: string, t: NamedText, raw: string): string | undefined {
  try {
    const m = JSON.parse(raw);
    if (m.name !== t.name || m.wordCount !== t.wordCount || m.lineCount !== t.lineCount || m.bytes !== t.bytes) {
      return `${where}${t.name}.meta.json is ${raw.trim()}, expected ${JSON.stringify({ wordCount: t.wordCount, lineCount: t.lineCount, bytes: t.bytes })}`;
    }
    return undefined;
  } catch (e) {
    return `${where}${t.name}.meta.json unreadable: ${errorMessage(e)}`;
  }
}

/** What is wrong with each file's result under the mount's processed/, if anything. */
export async function verifyMount(mount: string, texts: NamedText[]): Promise<string[]> {
  const dir = join(mount, 'processed');
  const problems = await mapPool(texts, SEED_CONCURRENCY, async (t) => {
    try {
      const st = await lstat(join(dir, t.name, t.name));
      if (!st.isFile() || st.size !== t.bytes) return `mount processed/${t.name}/${t.name} has ${st.size} bytes, expected ${t.bytes}`;
      return checkMeta(`mount processed/${t.name}/`, t, await readFile(join(dir, t.name, `${t.name}.meta.json`), 'utf8'));
    } catch (e) {
      return `mount processed/${t.name}: ${errorMessage(e)}`;
    }
  });
  return problems.filter((p): p is string => p !== undefined);
}

export function isNotFound(e: unknown): boolean {
  const err = e as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === 'NotFound' || err?.name === 'NoSuchKey' || err?.code === 'ENOENT' || err?.$metadata?.httpStatusCode === 404;
}

/** Poll `probe` until it returns true; the delay in ms, or `timed out after N s`. */
export async function pollUntil(
  probe: () => Promise<boolean>, timeoutSeconds: number, pollMs: number, t0 = performance.now(),
): Promise<number | string> {
  for (;;) {
    try {
      if (await probe()) return Math.round(performance.now() - t0);
    } catch (e) {
      if (!isNotFound(e)) return `error: ${errorMessage(e)}`;
    }
    if (performance.now() - t0 + pollMs > timeoutSeconds * 1000) return `timed out after ${timeoutSeconds} s`;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}


/**
 * Waits until the mount's inbox/ shows every file seeded through S3 under `<prefix>inbox/` whole
 * (its full size), as S3 Files imports it: the ms since `t0`, or an error that names the fix.
 * `what` says what was seeded ("2 file(s)"); `hint` ends the fix with another way out, if any.
 */
export async function awaitImported(
  inbox: string, texts: NamedText[], prefix: string, timeoutSeconds: number, pollMs: number, t0: number, what: string, hint = '',
): Promise<number> {
  const waited = await pollUntil(async () => {
    const sizes = await mapPool(texts, SEED_CONCURRENCY, (t) => lstat(join(inbox, t.name)).then((st) => st.size, () => -1));
    return sizes.every((size, i) => size === texts[i].bytes);
  }, timeoutSeconds, pollMs, t0);
  if (typeof waited !== 'number') {
    throw new Error(`Seeded ${what} through S3 under ${prefix}inbox/, but the mount's inbox/ did not show them all `
      + `(${waited}). Check that S3FILES_PREFIX is the key prefix of the access point's root${hint}.`);
  }
  return waited;
}

/**
 * Invokes a processor over exactly the seeded files. Timings only mean something for that work, so
 * another count or any error fails the run (`run` names it in the message).
 */
export async function invokeOnSeeded(
  run: string, functionName: string, payload: object, seeded: number,
): Promise<{ result: ProcessorResult; wallMs: number }> {
  const { result, wallMs } = await invoke(functionName, payload);
  if (result.files !== seeded || result.errors.length > 0) {
    throw new Error(`${run}: ${functionName} processed ${result.files} file(s) with ${result.errors.length} error(s), but `
      + `${seeded} were seeded; timings discarded. ${result.errors.slice(0, 5).map((x) => `${x.name}: ${x.error}`).join('; ')}`.trim());
  }
  return { result, wallMs };
}
