/**
 * Streaming text statistics shared by both processors and the benchmark.
 *
 * Policy (documented in the README via the lead):
 * - A file is text when it is valid UTF-8 and contains no NUL byte. Anything else is reported as
 *   `not text` and left where it was: a lossy decoder would give meaningless counts for binary data
 *   and would silently move a file nobody can interpret.
 * - `bytes` is the raw byte length. `wordCount` counts maximal runs of non-whitespace (JavaScript
 *   `\s`, i.e. ASCII and Unicode spaces). `lineCount` counts lines the way an editor shows them:
 *   newline characters, plus one when the last line has no trailing newline; an empty file has 0.
 */
export interface TextStats {
  readonly wordCount: number;
  readonly lineCount: number;
  readonly bytes: number;
}

export class NotTextError extends Error {
  constructor(reason: string) {
    super(`not text: ${reason}`);
    this.name = 'NotTextError';
  }
}

/** Same set as the `\s` class of JavaScript regular expressions. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a)
    || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Feed chunks in order, then call `finish()`. Keeps O(1) state, so 50 MB files stream through. */
export class TextStatsCounter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private bytes = 0;
  private words = 0;
  private newlines = 0;
  private inWord = false;
  private lastWasNewline = false;

  public update(chunk: Uint8Array): void {
    if (chunk.includes(0)) {
      throw new NotTextError(`NUL byte within the first ${this.bytes + chunk.indexOf(0) + 1} bytes`);
    }
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new NotTextError(`invalid UTF-8 within bytes ${this.bytes}-${this.bytes + chunk.length}`);
    }
    this.bytes += chunk.length;
    this.count(text);
  }

  public finish(): TextStats {
    let tail: string;
    try {
      tail = this.decoder.decode();
    } catch {
      throw new NotTextError('truncated UTF-8 sequence at end of file');
    }
    this.count(tail);
    const lineCount = this.newlines + (this.bytes > 0 && !this.lastWasNewline ? 1 : 0);
    return { wordCount: this.words, lineCount, bytes: this.bytes };
  }

  private count(text: string): void {
    const n = text.length;
    if (n === 0) return;
    let words = 0;
    let newlines = 0;
    let inWord = this.inWord;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        newlines++;
        inWord = false;
      } else if (isSpace(c)) {
        inWord = false;
      } else if (!inWord) {
        inWord = true;
        words++;
      }
    }
    this.words += words;
    this.newlines += newlines;
    this.inWord = inWord;
    this.lastWasNewline = text.charCodeAt(n - 1) === 0x0a;
  }
}

/** Convenience for whole buffers (tests, the benchmark's own checks). */
export function countText(data: Uint8Array | string): TextStats {
  const counter = new TextStatsCounter();
  counter.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  return counter.finish();
}
