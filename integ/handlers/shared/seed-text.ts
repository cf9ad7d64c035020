/**
 * Deterministic text for the benchmark: the same (seed, index) always gives the same bytes, so
 * both inboxes get identical content and the expected counts are known without re-counting.
 */
const VOCABULARY = [
  'bucket', 'object', 'file', 'system', 'mount', 'lambda', 'export', 'import', 'cache', 'prefix',
  'latency', 'throughput', 'rename', 'directory', 'version', 'metadata', 'access', 'point', 'sync',
  'the', 'a', 'of', 'and', 'to', 'in', 'is', 'on', 'with', 'données', 'Größe', '日本語', 'naïve',
];

export interface SeededText {
  readonly text: string;
  readonly wordCount: number;
  readonly lineCount: number;
  readonly bytes: number;
}

/* eslint-disable no-bitwise */ // a 32-bit PRNG is bit twiddling by nature

/** mulberry32: tiny, fast, good enough to pick words; not for anything security related. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Text of `minWords`..`maxWords` words, 8-15 words per line, every line ending in "\n". */
export function seededText(seed: number, index: number, minWords: number, maxWords: number): SeededText {
  const rand = prng((seed * 1_000_003 + index * 7919) >>> 0);
  const words = minWords + Math.floor(rand() * (maxWords - minWords + 1));
  const lines: string[] = [];
  let line: string[] = [];
  let lineLength = 8 + Math.floor(rand() * 8);
  for (let i = 0; i < words; i++) {
    line.push(VOCABULARY[Math.floor(rand() * VOCABULARY.length)]);
    if (line.length === lineLength) {
      lines.push(line.join(' '));
      line = [];
      lineLength = 8 + Math.floor(rand() * 8);
    }
  }
  if (line.length > 0) lines.push(line.join(' '));
  const text = lines.map((l) => `${l}\n`).join('');
  return { text, wordCount: words, lineCount: lines.length, bytes: Buffer.byteLength(text, 'utf8') };
}
