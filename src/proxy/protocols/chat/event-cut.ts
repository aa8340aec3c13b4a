import { ENGINE_FIELDS } from '../../../engine-wire/engine-fields.js';

/** What the harness asked to see of a Chat Completions stream besides the text. */
export interface ChatClientWants {
  logprobs: boolean;
  /** The harness set stream_options.include_usage itself. */
  usage: boolean;
}

/** One upstream chunk as the harness gets it, with what the relay needs to know of it. */
export interface ChatEventCut {
  /** The event's data for the harness, or null when it gets nothing (a usage chunk it did not ask for). */
  text: string | null;
  /** A choice finished: its `finish_reason` is set. */
  finished: boolean;
  /** A choice carried completion token ids, or output without an id list. */
  output: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Containers nested deeper than this are left to JSON.parse (the scan keeps their kinds in a number's bits). */
const MAX_DEPTH = 30;
/** What a list of numbers lacks: a string, a container in it, or a brace that closes none. */
const NESTED = /["[{}]/;

/**
 * The chunk as `ChatStreamTranslator` would send it (engine fields and unasked logprobs and usage
 * taken out), cut from the upstream's text instead of parsed and written again: the harness gets the
 * upstream's own text of what is kept. Undefined when the text is not one JSON object as the scan
 * reads it, spans lines, or carries an `error`: those go the parsed way. The scan checks the chunk's
 * structure, not every string and number in it; the record reads the same text with JSON.parse.
 */
export function cutChatEvent(data: string, wants: ChatClientWants): ChatEventCut | undefined {
  // SSE carries one line per `data:`: a chunk spread over lines is sent again as one
  if (data.includes('\n') || data.includes('\r')) return undefined;
  return new EventCutter(data, wants).cut();
}

/** One scan of one chunk's text, left to right, copying the spans between what it takes out. */
class EventCutter {
  private out = '';
  /** Where the text not yet copied to `out` starts. */
  private from = 0;
  private finished = false;
  private output = false;
  private usageOnly = false;

  constructor(
    private readonly s: string,
    private readonly wants: ChatClientWants,
  ) {}

  cut(): ChatEventCut | undefined {
    const end = this.object(this.space(0), true);
    if (end < 0 || this.space(end) !== this.s.length) return undefined;
    if (this.usageOnly && !this.wants.usage) return { text: null, finished: this.finished, output: this.output };
    const text = this.from === 0 ? this.s : this.out + this.s.slice(this.from);
    return { text, finished: this.finished, output: this.output };
  }

  /** The object opening at `open` (the chunk, or one of its choices); one past it, or -1. */
  private object(open: number, top: boolean): number {
    const s = this.s;
    if (s.charCodeAt(open) !== OPEN_BRACE) return -1;
    let i = this.space(open + 1);
    if (s.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    /** One past the last member kept, or -1 while none is: where taking out the next member starts. */
    let keptEnd = -1;
    let tokenIds = false;
    let delta = false;
    for (;;) {
      if (s.charCodeAt(i) !== QUOTE) return -1;
      const keyEnd = this.stringEnd(i);
      if (keyEnd < 0) return -1;
      const key = s.slice(i + 1, keyEnd - 1);
      // an escaped key might name a field the scan must take out: JSON.parse reads it
      if (key.includes('\\')) return -1;
      const colon = this.space(keyEnd);
      if (s.charCodeAt(colon) !== COLON) return -1;
      const valueStart = this.space(colon + 1);
      let valueEnd: number;
      if (top && key === 'choices' && s.charCodeAt(valueStart) === OPEN_BRACKET) valueEnd = this.choices(valueStart);
      else valueEnd = this.valueEnd(valueStart);
      if (valueEnd < 0) return -1;
      const next = this.space(valueEnd);
      const last = s.charCodeAt(next) === CLOSE_BRACE;
      if (!last && s.charCodeAt(next) !== COMMA) return -1;
      if (top && key === 'error') return -1;
      if (!top && key === 'token_ids') {
        tokenIds = true;
        if (s.charCodeAt(this.space(valueStart + 1)) !== CLOSE_BRACKET) this.output = true;
      }
      if (!top && key === 'delta') delta = true;
      if (!top && key === 'finish_reason' && s.charCodeAt(valueStart) === QUOTE && valueEnd - valueStart > 2) this.finished = true;

      if (ENGINE_FIELDS.has(key) || (top && key === 'usage' && !this.wants.usage)) {
        // the member goes with the comma before it, or when it comes first, with the one after it
        if (keptEnd >= 0) this.skip(keptEnd, valueEnd);
        else this.skip(i, last ? valueEnd : this.space(next + 1));
      } else {
        if (!top && key === 'logprobs' && !this.wants.logprobs) {
          // null, not absent: what an OpenAI server sends when logprobs were not requested
          this.out += s.slice(this.from, valueStart) + 'null';
          this.from = valueEnd;
        }
        keptEnd = valueEnd;
      }
      if (last) {
        if (!top && delta && !tokenIds) this.output = true;
        return next + 1;
      }
      i = this.space(next + 1);
    }
  }

  /** The chunk's `choices` list, each object in it cut as a choice; one past it, or -1. */
  private choices(open: number): number {
    const s = this.s;
    let i = this.space(open + 1);
    if (s.charCodeAt(i) === CLOSE_BRACKET) {
      this.usageOnly = true;
      return i + 1;
    }
    for (;;) {
      const end = s.charCodeAt(i) === OPEN_BRACE ? this.object(i, false) : this.valueEnd(i);
      if (end < 0) return -1;
      i = this.space(end);
      if (s.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
      if (s.charCodeAt(i) !== COMMA) return -1;
      i = this.space(i + 1);
    }
  }

  /** Leaves the text from `start` to `end` out of what the harness gets. */
  private skip(start: number, end: number): void {
    this.out += this.s.slice(this.from, start);
    this.from = end;
  }

  private space(i: number): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x09) i++;
      else return i;
    }
  }

  /** One past the string whose opening quote is at `open`, or -1. */
  private stringEnd(open: number): number {
    const s = this.s;
    let from = open + 1;
    for (;;) {
      const quote = s.indexOf('"', from);
      if (quote < 0) return -1;
      let backslashes = 0;
      while (s.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      from = quote + 1;
    }
  }

  /** One past the value starting at `start`, or -1. Containers are matched bracket for bracket, their strings skipped. */
  private valueEnd(start: number): number {
    const s = this.s;
    const c = s.charCodeAt(start);
    if (c === QUOTE) return this.stringEnd(start);
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return this.scalarEnd(start);
    if (c === OPEN_BRACKET) {
      // a list of numbers (the prompt's ids: 20 KB for 3 000 tokens) ends at its first `]`, found natively
      const close = s.indexOf(']', start);
      if (close > 0 && !NESTED.test(s.slice(start + 1, close))) return close + 1;
    }
    // bit d of `kinds`: the container open at depth d is an object
    let kinds = 0;
    let depth = 0;
    for (let i = start; i < s.length; i++) {
      const d = s.charCodeAt(i);
      if (d === QUOTE) {
        const end = this.stringEnd(i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) {
        if (depth === MAX_DEPTH) return -1;
        if (d === OPEN_BRACE) kinds |= 1 << depth;
        else kinds &= ~(1 << depth);
        depth++;
      } else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        const object = (kinds & (1 << depth)) !== 0;
        if (object !== (d === CLOSE_BRACE)) return -1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }

  /** One past a number, `true`, `false` or `null` starting at `start`, or -1 when none starts there. */
  private scalarEnd(start: number): number {
    const s = this.s;
    const c = s.charCodeAt(start);
    const number = c === 0x2d || (c >= 0x30 && c <= 0x39);
    if (!number && c !== 0x74 && c !== 0x66 && c !== 0x6e) return -1;
    let i = start + 1;
    for (; i < s.length; i++) {
      const d = s.charCodeAt(i);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x09) break;
    }
    return i;
  }
}
