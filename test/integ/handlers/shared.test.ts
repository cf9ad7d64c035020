import { assertTimeToWork, intSetting, errorMessage } from '../../../integ/handlers/shared/common';
import { Lease } from '../../../integ/handlers/shared/lease';
import { renderTable } from '../../../integ/handlers/shared/markdown';
import { encodeCopySource, inProgressNameReason, resultNameReason, unrepresentableKeyReason, unsafeNameReason } from '../../../integ/handlers/shared/names';
import { keepSucceeded, mapPool } from '../../../integ/handlers/shared/pool';
import { seededText } from '../../../integ/handlers/shared/seed-text';
import { speedUp, summarize } from '../../../integ/handlers/shared/stats';
import { countText, TextStatsCounter } from '../../../integ/handlers/shared/text-stats';

describe('text statistics', () => {
  test.each([
    ['', { wordCount: 0, lineCount: 0, bytes: 0 }],
    ['\n', { wordCount: 0, lineCount: 1, bytes: 1 }],
    ['one', { wordCount: 1, lineCount: 1, bytes: 3 }],
    ['a  b\tc\n\nd', { wordCount: 4, lineCount: 3, bytes: 9 }],
    ['x\u3000y\u2028z\u00a0w', { wordCount: 4, lineCount: 1, bytes: Buffer.byteLength('x\u3000y\u2028z\u00a0w') }],
  ])('counts %j', (text, expected) => {
    // GIVEN / WHEN / THEN
    expect(countText(text)).toEqual(expected);
  });

  test('agrees with a regex reference when fed byte by byte (words and multi-byte chars split across chunks)', () => {
    // GIVEN multi-byte text, split into 1-byte chunks
    const text = seededText(1, 2, 300, 400).text + 'naïve 日本語 end';
    const counter = new TextStatsCounter();
    const bytes = Buffer.from(text);
    // WHEN
    for (let i = 0; i < bytes.length; i++) counter.update(bytes.subarray(i, i + 1));
    // THEN
    expect(counter.finish()).toEqual({
      wordCount: text.split(/\s+/).filter(Boolean).length,
      lineCount: text.split('\n').length,
      bytes: bytes.length,
    });
  });

  test('rejects invalid UTF-8, NUL bytes and truncated sequences as not text', () => {
    // GIVEN / WHEN / THEN
    expect(() => countText(Buffer.from([0xc3, 0x28]))).toThrow(/^not text: invalid UTF-8 within bytes 0-2$/);
    expect(() => countText(Buffer.from('ab\0c'))).toThrow('not text: NUL byte within the first 3 bytes');
    expect(() => countText(Buffer.from([0xe6, 0x97]))).toThrow('not text: truncated UTF-8 sequence at end of file');
  });
});

describe('seeded text', () => {
  test('is deterministic and its declared counts are right', () => {
    // GIVEN / WHEN
    const a = seededText(42, 3, 500, 2000);
    const b = seededText(42, 3, 500, 2000);
    // THEN
    expect(a).toEqual(b);
    expect(seededText(43, 3, 500, 2000).text).not.toBe(a.text);
    expect(a.wordCount).toBeGreaterThanOrEqual(500);
    expect(a.wordCount).toBeLessThanOrEqual(2000);
    expect(countText(a.text)).toEqual({ wordCount: a.wordCount, lineCount: a.lineCount, bytes: a.bytes });
  });
});

describe('names and keys', () => {
  test.each([
    ['..', /traversal/], ['.', /traversal/], ['a/b', /separator/], ['a\0b', /NUL/],
    ['', /empty/], ['é'.repeat(128), /longer than 255 bytes/],
  ])('refuses entry name %j', (name, reason) => {
    // GIVEN / WHEN / THEN
    expect(unsafeNameReason(name)).toMatch(reason);
  });

  test('names of files still being written are recognised; finished names are not', () => {
    expect(inProgressNameReason('.nfs000000000001')).toBe('NFS silly-rename file');
    expect(inProgressNameReason('.report.csv.tmp')).toBe('dotfile (a temporary or hidden file)');
    expect(inProgressNameReason('upload.PART')).toBe('temporary suffix .part');
    expect(inProgressNameReason('notes.txt~')).toBe('temporary suffix ~');
    for (const n of ['report.csv', 'tmp.txt', 'partial-results.json', 'a.b.c']) expect(inProgressNameReason(n)).toBeUndefined();
  });

  test('a name whose result name would pass 255 bytes is refused with the limit and the fix', () => {
    // GIVEN names around the limit: 245 bytes fits (245 + 10 = 255), 246 does not
    expect(resultNameReason('x'.repeat(245))).toBeUndefined();
    expect(resultNameReason('x'.repeat(246))).toBe('name too long for its result: "<name>.meta.json" would be 256 bytes, over 255; shorten the name to at most 245 bytes');
    // AND multi-byte names count bytes, not characters
    expect(resultNameReason('日'.repeat(82))).toMatch(/would be 256 bytes/);
    expect(unrepresentableKeyReason('x'.repeat(250))).toMatch(/name too long for its result/);
    expect(resultNameReason('scan.txt.meta.json')).toBeUndefined();
  });

  test('accepts ordinary names, including dots inside a name', () => {
    // GIVEN / WHEN / THEN
    for (const n of ['a..b', '.hidden', 'x'.repeat(255), 'größe 日本.txt', 'back\\slash']) expect(unsafeNameReason(n)).toBeUndefined();
    expect(unrepresentableKeyReason('report..final.txt')).toBeUndefined();
    expect(unrepresentableKeyReason('a\\b')).toBeUndefined();
  });

  test('encodes CopySource per RFC 3986, segment by segment', () => {
    // GIVEN / WHEN / THEN
    expect(encodeCopySource('b', "inbox/a b+c!'()*é.txt")).toBe('b/inbox/a%20b%2Bc%21%27%28%29%2A%C3%A9.txt');
    expect(encodeCopySource('b', 'inbox/x', 'v/1')).toBe('b/inbox/x?versionId=v%2F1');
  });
});

describe('pool, stats, table, settings', () => {
  test('mapPool keeps order, bounds concurrency, and propagates a thrown error', async () => {
    // GIVEN
    let running = 0;
    let peak = 0;
    // WHEN
    const out = await mapPool([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    // THEN
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
    await expect(mapPool([1, 2], 4, async (n) => { if (n === 2) throw new Error('boom'); return n; })).rejects.toThrow('boom');
    expect(await mapPool([], 4, async () => 1)).toEqual([]);
  });

  test('keepSucceeded keeps, in order, the items whose step succeeded', async () => {
    // GIVEN a step that fails for odd numbers and finishes out of order
    const step = async (n: number) => {
      await new Promise((r) => setTimeout(r, 6 - n));
      return n % 2 === 0;
    };
    // WHEN / THEN
    expect(await keepSucceeded([1, 2, 3, 4, 5], 3, step)).toEqual([2, 4]);
    expect(await keepSucceeded([], 3, step)).toEqual([]);
  });

  test('summarize and speedUp', () => {
    // GIVEN / WHEN / THEN
    expect(summarize([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
    expect(summarize([4, 1, 2, 3])).toEqual({ min: 1, median: 2.5, max: 4 });
    expect(() => summarize([])).toThrow(/no values/);
    expect(speedUp(3394, 664)).toBe(5.11);
    expect(speedUp(1, 0)).toBeUndefined();
  });

  test('renderTable escapes pipes and newlines', () => {
    // GIVEN / WHEN / THEN
    expect(renderTable(['A', 'B'], [['x|y', 'l1\nl2']])).toBe('| A | B |\n| --- | ---: |\n| x\\|y | l1 l2 |');
  });

  test('intSetting: event wins over env, defaults apply, bad values name the setting', () => {
    // GIVEN / WHEN / THEN
    expect(intSetting('c', 3, '5', 16, 1, 64)).toBe(3);
    expect(intSetting('c', undefined, ' 5 ', 16, 1, 64)).toBe(5);
    expect(intSetting('c', undefined, '', 16, 1, 64)).toBe(16);
    expect(() => intSetting('c', undefined, 'abc', 16, 1, 64)).toThrow('Invalid c: "abc". Use an integer from 1 to 64.');
    expect(() => intSetting('c', 65, undefined, 16, 1, 64)).toThrow('Invalid c: 65.');
    expect(() => intSetting('c', true, undefined, 16, 1, 64)).toThrow('Invalid c: true.');
  });

  test('errorMessage adds errno codes and SDK error names, passes other values through', () => {
    // GIVEN / WHEN / THEN
    expect(errorMessage(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe('ENOENT: gone');
    expect(errorMessage(Object.assign(new Error('The key does not exist'), { name: 'NoSuchKey', $metadata: {} }))).toBe('NoSuchKey: The key does not exist');
    expect(errorMessage(new Error('plain'))).toBe('plain');
    expect(errorMessage('text')).toBe('text');
  });
});

describe('the processors\' shared deadlines and leases', () => {
  test('assertTimeToWork: an invocation that starts with less than 21 s fails naming the timeout; 21 s or no context is fine', () => {
    // GIVEN Lambda contexts with 20.9 s and 21 s left, and none
    const left = (ms: number) => ({ getRemainingTimeInMillis: () => ms });
    // WHEN / THEN
    expect(() => assertTimeToWork('p', left(20_900))).toThrow(new Error('p: the function\'s timeout is too short: 20 s remained when this '
      + 'invocation started, and the processor starts no work in its last 20 s (kept to finish what is in flight), which leaves it less than 1 s: '
      + 'it would return deferred: true on every run, having done next to nothing. Set the function\'s timeout to at least 30 s (Lambda\'s default is 3 s).'));
    expect(() => assertTimeToWork('p', left(21_000))).not.toThrow();
    expect(() => assertTimeToWork('p', undefined)).not.toThrow();
  });

  test('a lease record stamped more than the longest lease in the future is damaged (expired); one a little ahead is not', async () => {
    // GIVEN a lease whose own latest write the server stamped at T
    const T = 1_700_000_000_000;
    const lease = new Lease({ write: async () => T, remove: async () => undefined }, { owner: 'me', ttlMs: 30_000 });
    await lease.renew();
    // WHEN records are judged / THEN
    expect(lease.damage(T + 3_600_001)).toBe('lease stamped more than the longest lease in the future (a clock step or a restore with times): treated as expired');
    expect(lease.expired(T + 3_600_001)).toBe(true);
    expect(lease.damage(T + 60_000)).toBeUndefined();
    expect(lease.expired(T + 60_000)).toBe(false);
    expect(lease.expired(T - 30_001)).toBe(true);
    expect(lease.damage(T, 3_600_001)).toBe('lease promises more than the longest lease a processor may hold: treated as expired');
  });
});
