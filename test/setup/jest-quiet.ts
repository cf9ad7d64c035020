/**
 * Keeps jest's report to what a reader needs.
 *
 * The integ handlers log structured JSON (Powertools logs and EMF metrics) to stdout, as they do in
 * Lambda. Under jest those lines would land in the middle of the test report: drop them here, and
 * only them. Tests that assert on logs capture stdout themselves (`captureStdout`), which replaces
 * this filter while it is active. Synths that bundle print progress lines: dropped too.
 * `SHOW_HANDLER_LOGS=1` keeps everything.
 */
export function isHandlerLogLine(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const doc = JSON.parse(line);
    if (typeof doc !== 'object' || doc === null) return false;
    return doc._aws?.CloudWatchMetrics !== undefined || (typeof doc.level === 'string' && 'timestamp' in doc && 'service' in doc);
  } catch {
    return false;
  }
}

/** Wraps a stream's write so that handler log lines are dropped and everything else passes. */
function filterHandlerLogs(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text !== undefined) {
      const lines = text.split('\n');
      const kept = lines.filter((l) => !isHandlerLogLine(l.trim()) && !isBundlingProgress(l.trim()));
      if (kept.every((l) => l.trim() === '')) {
        (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
        return true;
      }
      if (kept.length !== lines.length) return write(kept.join('\n'), ...(rest as []));
    }
    return write(chunk as string, ...(rest as []));
  }) as typeof stream.write;
}

// Powertools writes INFO/DEBUG to stdout and WARN/ERROR to stderr.
/**
 * aws-cdk-lib's progress line when a synth bundles a NodejsFunction. (esbuild's own summary comes
 * from a child process, out of reach here: the tests that bundle set its log level.)
 */
export function isBundlingProgress(line: string): boolean {
  return /^Bundling asset \S+\.\.\.$/.test(line);
}

if (process.env.SHOW_HANDLER_LOGS !== '1') {
  filterHandlerLogs(process.stdout);
  filterHandlerLogs(process.stderr);
}

// On Node 20 (below this project's floor, 22) the SDK's notice that its 2027 releases need Node 22 would print
// once per jest worker (README, "Development", says it once).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// npm and npx run by tests (npm pack, esbuild through npx) report errors, not warnings about the
// machine's own npm configuration.
process.env.npm_config_loglevel ??= 'error';
