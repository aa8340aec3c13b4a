/**
 * A parser for one Python call with literal arguments — `pyautogui.click(x=10, y=20, button='left')` —
 * so model-written pyautogui is read as data and never executed.
 */
export type PyValue = number | string | boolean | null | PyValue[];
export interface PyCall {
  /** Dotted callee, e.g. "pyautogui.click" or "time.sleep". */
  name: string;
  args: PyValue[];
  kwargs: Record<string, PyValue>;
}

export class PyParseError extends Error {}

export function parseCall(source: string): PyCall {
  const p = new Parser(source.trim());
  const call = p.call();
  p.skipSpace();
  if (!p.done()) throw new PyParseError(`unexpected "${p.rest(12)}" after the call`);
  return call;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }
  rest(n: number): string {
    return this.s.slice(this.i, this.i + n);
  }
  skipSpace(): void {
    while (!this.done() && /\s/.test(this.s[this.i]!)) this.i++;
  }
  private expect(ch: string): void {
    this.skipSpace();
    if (this.s[this.i] !== ch) throw new PyParseError(`expected "${ch}" at "${this.rest(12) || 'end of input'}"`);
    this.i++;
  }
  private peek(): string | undefined {
    this.skipSpace();
    return this.s[this.i];
  }
  private ident(): string {
    this.skipSpace();
    const m = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(this.s.slice(this.i));
    if (!m) throw new PyParseError(`expected a name at "${this.rest(12) || 'end of input'}"`);
    this.i += m[0].length;
    return m[0];
  }

  call(): PyCall {
    const name = this.ident();
    this.expect('(');
    const args: PyValue[] = [];
    const kwargs: Record<string, PyValue> = {};
    while (this.peek() !== ')') {
      if (this.done()) throw new PyParseError('unclosed "(": the call has no ")"');
      const kw = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/.exec(this.s.slice(this.i));
      if (kw) {
        this.i += kw[0].length;
        kwargs[kw[1]!] = this.value();
      } else {
        if (Object.keys(kwargs).length > 0) throw new PyParseError('a positional argument follows a keyword argument');
        args.push(this.value());
      }
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== ')') throw new PyParseError(`expected "," or ")" at "${this.rest(12) || 'end of input'}"`);
    }
    this.i++;
    return { name, args, kwargs };
  }

  private value(): PyValue {
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      this.i++;
      const items: PyValue[] = [];
      while (this.peek() !== close) {
        if (this.done()) throw new PyParseError(`unclosed "${c}"`);
        items.push(this.value());
        if (this.peek() === ',') this.i++;
        else if (this.peek() !== close) throw new PyParseError(`expected "," or "${close}" at "${this.rest(12)}"`);
      }
      this.i++;
      return items;
    }
    const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (m) {
      this.i += m[0].length;
      return Number(m[0]);
    }
    const word = /^(True|False|None)\b/.exec(this.s.slice(this.i));
    if (word) {
      this.i += word[0].length;
      return word[1] === 'True' ? true : word[1] === 'False' ? false : null;
    }
    throw new PyParseError(`only literal arguments are accepted (numbers, strings, lists), got "${this.rest(16) || 'end of input'}"`);
  }

  private string(): string {
    const quote = this.s[this.i]!;
    const triple = this.s.startsWith(quote.repeat(3), this.i);
    const end = triple ? quote.repeat(3) : quote;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.done()) throw new PyParseError('unterminated string');
      if (this.s.startsWith(end, this.i)) {
        this.i += end.length;
        return out;
      }
      const ch = this.s[this.i++]!;
      if (ch !== '\\') {
        if (ch === '\n' && !triple) throw new PyParseError('unterminated string');
        out += ch;
        continue;
      }
      const esc = this.s[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', '\n': '' };
      if (esc !== undefined && esc in simple) out += simple[esc];
      else if (esc === 'u' || esc === 'x') {
        const len = esc === 'u' ? 4 : 2;
        const hex = this.s.slice(this.i, this.i + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new PyParseError(`bad \\${esc} escape`);
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += len;
      } else out += `\\${esc ?? ''}`;
    }
  }
}

/** Splits a script into statements: one per line (or `;`), skipping imports, comments and blank lines. */
export function statements(script: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: string | null = null;
  let depth = 0;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!;
    if (quote) {
      current += ch;
      if (ch === '\\') current += script[++i] ?? '';
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    if (ch === '#') {
      while (i + 1 < script.length && script[i + 1] !== '\n') i++;
      continue;
    }
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if ((ch === '\n' || ch === ';') && depth <= 0) {
      out.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s && !/^(import|from)\s/.test(s));
}
