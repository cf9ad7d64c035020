import { isBundlingProgress, isHandlerLogLine } from './setup/jest-quiet';

describe('the jest filter for handler logs', () => {
  test('drops Powertools log lines and EMF documents', () => {
    expect(isHandlerLogLine('{"level":"WARN","message":"file not processed","timestamp":"2026-11-22T11:03:41.784Z","service":"processor-s3files"}')).toBe(true);
    expect(isHandlerLogLine('{"_aws":{"Timestamp":1,"CloudWatchMetrics":[]},"service":"x","FilesProcessed":1}')).toBe(true);
  });

  test('keeps everything else, JSON included', () => {
    expect(isHandlerLogLine('PASS test/x.test.ts')).toBe(false);
    expect(isHandlerLogLine('{"files":1,"errors":[]}')).toBe(false);
    expect(isHandlerLogLine('{"level":"WARN"}')).toBe(false);
    expect(isHandlerLogLine('{not json')).toBe(false);
    expect(isHandlerLogLine('')).toBe(false);
  });

  test('drops the progress line of bundling during a synth, nothing like it', () => {
    expect(isBundlingProgress('Bundling asset TestStack/Worker/Code/Stage...')).toBe(true);
    expect(isBundlingProgress('Bundling failed: esbuild exited with 1')).toBe(false);
    expect(isBundlingProgress('✘ [ERROR] Could not resolve "x"')).toBe(false);
  });
});
