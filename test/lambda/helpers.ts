/** Small helpers shared by the handler tests (not a test file itself). */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempMount(): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), 's3files-mount-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * Capture what powertools writes to stdout (JSON logs, EMF) so tests stay quiet and can assert on
 * the metrics. Returns the captured lines and a restore function.
 */
export function captureStdout(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter((l) => l.trim() !== ''));
    return true;
  }) as never);
  return { lines, restore: () => spy.mockRestore() };
}

/** The EMF documents among captured lines. */
export function emfMetrics(lines: string[]): Record<string, unknown>[] {
  return lines.flatMap((l) => {
    try {
      const doc = JSON.parse(l);
      return doc._aws?.CloudWatchMetrics ? [doc] : [];
    } catch {
      return [];
    }
  });
}
