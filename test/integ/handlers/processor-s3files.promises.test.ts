/**
 * processor-s3files against integ/README.md's promises where issue 41 found them broken: equal
 * modification times, metadata left alone by a crash, directories the access point's user cannot
 * move, a MOUNT_PATH ending in `/`. Each test's name quotes the promise it holds.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { AccessPointUser, list, processorMount, RUNS_AS_ROOT } from './helpers';

// A configurable copy of fs/promises, so one call can be made to wait for another run (the real one is frozen).
jest.mock('node:fs/promises', () => ({ ...jest.requireActual('node:fs/promises') }));
const fsp: typeof import('node:fs/promises') = jest.requireMock('node:fs/promises');

const { mountDir, p, inbox, run } = processorMount();
const setTimes = (path: string, at: Date) => fs.utimesSync(path, at, at);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Every file under failed/ (`<run dir>/<name>`, the hidden record directory left out) with its text. */
function failedFiles(): Record<string, string> {
  return Object.fromEntries(list(p('failed')).filter((d) => !d.startsWith('.'))
    .flatMap((d) => list(p('failed', d)).map((n) => [`${d}/${n}`, fs.readFileSync(p('failed', d, n), 'utf8')])));
}

describe('"processed/<name>/ holds the result of the newest upload of the name" ("re-uploads: what wins")', () => {
  test('of two uploads with the same modification time (whole seconds, tar x, cp -p, touch -r), the one claimed later is the result, '
    + 'and the other is kept in failed/: "an older result is dropped only once the newer one is in place" (issue 41.1)', async () => {
    // GIVEN upload one of report.txt with a whole-second time, claimed by run A, which is slow to publish
    const second = new Date('2026-11-01T10:00:00.000Z');
    inbox('report.txt', 'upload one\n');
    setTimes(p('inbox', 'report.txt'), second);
    const realRename = fsp.rename;
    let raced = false;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (!raced && String(to) === p('processed', 'report.txt')) {
        raced = true;
        // WHEN upload two arrives with the same time (touch -r) and run B claims and publishes it before A publishes
        await sleep(50);
        inbox('report.txt', 'upload two, the newer\n');
        setTimes(p('inbox', 'report.txt'), second);
        expect(await run()).toMatchObject({ files: 1, errors: [] });
      }
      return realRename(from, to);
    });
    const a = await run();
    // THEN upload two is the result; upload one is kept in failed/, reported once as superseded; nothing is lost
    expect(raced).toBe(true);
    expect(fs.readFileSync(p('processed', 'report.txt', 'report.txt'), 'utf8')).toBe('upload two, the newer\n');
    expect(a).toMatchObject({ files: 0, superseded: 1 });
    expect(a.errors).toEqual([{ name: 'report.txt', error: expect.stringMatching(/^superseded: processed\/report.txt\/ holds the result of an upload with the same modification time \(2026-11-01T10:00:00.000Z\) that was claimed later/) }]);
    expect(Object.values(failedFiles())).toEqual(['upload one\n']);
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('"every file in inbox/ is processed once into processed/<name>/, or reported once in failed/ with a reason"', () => {
  test('metadata left alone in a taken-over item (an older version killed while taking it over) is never processed as an upload: kept in failed/, reported once (issue 41.2)', async () => {
    // GIVEN a dead invocation's claim whose item holds only report.txt's metadata
    const dead = `${Date.now()}-${randomUUID()}`;
    fs.mkdirSync(p('processing', dead, '1'), { recursive: true });
    const meta = '{"name":"report.txt","wordCount":3,"lineCount":1,"bytes":18,"source":{"modifiedNs":"1","claim":"x"}}\n';
    fs.writeFileSync(p('processing', dead, '1', 'report.txt.meta.json'), meta);
    fs.writeFileSync(p('processing', dead, '.lease'), '{"owner":"x","ttlMs":30000,"beat":2,"released":true}\n');
    // WHEN two runs come
    const first = await run();
    const second = await run();
    // THEN nothing is published under the metadata's name; it is in failed/, named once with the reason
    expect(list(p('processed'))).toEqual([]);
    expect(first).toMatchObject({ files: 0 });
    expect(first.errors).toEqual([{ name: 'report.txt.meta.json', error: expect.stringMatching(/^metadata of report.txt without its data, .* \(moved to failed\/\S+\/\)$/) }]);
    expect(second).toMatchObject({ files: 0, errors: [] });
    expect(Object.values(failedFiles())).toEqual([meta]);
    expect(list(p('processing'))).toEqual([]);
  });

  test('with MOUNT_PATH ending in "/" (ECS and Batch containerPath, AgentCore mountPath), the report names failed/<claim>/ as it is (issue 41.7)', async () => {
    // GIVEN a binary file
    inbox('bin.dat', Buffer.from([0, 1, 2]));
    // WHEN the processor runs with a trailing slash on its mount path
    const result = await run({ mountPath: `${mountDir()}/` });
    // THEN the report names the directory that holds the file
    const dir = /\(moved to (failed\/[^/]+)\/\)$/.exec(result.errors[0]?.error ?? '')?.[1];
    expect(dir).toBeDefined();
    expect(list(p(dir!))).toEqual(['bin.dat']);
  });
});

describe('"moved to failed/<claim>/ as they are and reported once" (as the access point user, uid 1000)', () => {
  const user = new AccessPointUser();
  afterEach(() => user.cleanup());

  (RUNS_AS_ROOT ? test : test.skip)('a sub-directory an S3 key made (root:root 0755), which uid 1000 cannot move, is reported once and leaves no empty failed/<claim>/ (issue 41.4)', () => {
    // GIVEN the working directories made by the access point user, and inbox/2026-11/ born from the key inbox/2026-11/report.txt
    const mountPath = user.dir(1000);
    for (const d of ['inbox', 'processed', 'processing', 'failed']) {
      fs.mkdirSync(join(mountPath, d));
      fs.chownSync(join(mountPath, d), 1000, 1000);
    }
    fs.mkdirSync(join(mountPath, 'inbox', '2026-11'), { mode: 0o755 });
    fs.writeFileSync(join(mountPath, 'inbox', '2026-11', 'report.txt'), 'words\n');
    // WHEN the processor runs three times
    const runs = [1, 2, 3].map(() => user.run('processor-s3files', mountPath));
    // THEN it was reported once, by the first run, saying where it stays and why; failed/ holds no empty claim directory
    expect(runs.map((r) => r.status)).toEqual([0, 0, 0]);
    expect(runs[0].result.errors).toEqual([{
      name: '2026-11',
      error: expect.stringMatching(/^refused: a directory; .*it cannot be moved to failed\/ \(EACCES.*\) and stays in inbox\/, recorded in failed\/\.not-moved\/ and not reported again/),
    }]);
    expect(runs.slice(1).map((r) => r.result.errors)).toEqual([[], []]);
    expect(list(join(mountPath, 'failed')).filter((d) => !d.startsWith('.'))).toEqual([]);
    expect(list(join(mountPath, 'inbox', '2026-11'))).toEqual(['report.txt']);
  });
});
