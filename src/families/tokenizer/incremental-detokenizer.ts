/** The text a growing list of ids adds, a piece at a time. */
export interface TextStream {
  /** The text these ids add, or '' while it ends inside a character. */
  push(ids: readonly number[]): string;
  /** Whatever is left, whole or not. */
  flush(): string;
}

/**
 * Text of a growing list of ids, a piece at a time, as a server streams it: each piece is decoded
 * with a few tokens before it for context (so only the new text is decoded, whatever the length),
 * and text that ends inside a character (a byte-level token holding half of it) waits for the rest.
 */
export class IncrementalDetokenizer implements TextStream {
  private readonly ids: number[] = [];
  /** Tokens whose text has been handed out. */
  private done = 0;

  constructor(
    private readonly decode: (ids: readonly number[]) => string,
    private readonly context = 4,
  ) {}

  /** The text these ids add, or '' while it ends inside a character. */
  push(ids: readonly number[]): string {
    for (const id of ids) this.ids.push(id);
    return this.take(false);
  }

  /** Whatever is left, whole or not. */
  flush(): string {
    return this.take(true);
  }

  private take(final: boolean): string {
    if (this.done === this.ids.length) return '';
    const from = Math.max(0, this.done - this.context);
    const before = this.decode(this.ids.slice(from, this.done));
    const text = this.decode(this.ids.slice(from));
    if (!final && text.endsWith('\uFFFD')) return '';
    this.done = this.ids.length;
    return text.slice(before.length);
  }
}
