import type { TextStream } from './incremental-detokenizer.js';

/**
 * GPT-2's byte-level alphabet, as Hugging Face's ByteLevel pre-tokenizer and decoder use it: printable
 * bytes stand for themselves, the other bytes for the characters from U+0100 on, in byte order.
 */
function byteOfChar(): Map<string, number> {
  const map = new Map<string, number>();
  let shifted = 0;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
    map.set(String.fromCodePoint(printable ? byte : 256 + shifted++), byte);
  }
  return map;
}

/**
 * Text of ids streamed by a byte-level BPE tokenizer (Qwen, DeepSeek, Llama 3, GPT-2): each id's bytes
 * once, looked up and kept, through one streaming UTF-8 decoder, so a character split over tokens waits
 * for its last byte. Added tokens (`<|im_end|>`, `<think>`) are their text as they are, as the ByteLevel
 * decoder writes them; this equals `decode(ids)` of the whole list, cut where it was pushed.
 */
export class ByteLevelTables {
  private readonly bytes = new Map<number, Uint8Array>();
  private readonly added: Map<number, string>;
  private tokens: string[] | undefined;

  constructor(
    private readonly vocab: () => Iterable<[string, number]>,
    added: readonly { id: number; content: string }[],
  ) {
    this.added = new Map(added.map((token) => [token.id, token.content]));
  }

  stream(): TextStream {
    const utf8 = new TextDecoder('utf-8');
    return {
      push: (ids) => {
        let text = '';
        for (const id of ids) {
          const added = this.added.get(id);
          if (added !== undefined) text += utf8.decode() + added;
          else text += utf8.decode(this.bytesOf(id), { stream: true });
        }
        return text;
      },
      flush: () => utf8.decode(),
    };
  }

  private bytesOf(id: number): Uint8Array {
    let bytes = this.bytes.get(id);
    if (bytes) return bytes;
    const token = this.tokenOf(id);
    const alphabet = (BYTE_OF_CHAR ??= byteOfChar());
    const chars = [...token];
    bytes = chars.every((c) => alphabet.has(c)) ? Uint8Array.from(chars, (c) => alphabet.get(c) as number) : new TextEncoder().encode(token);
    this.bytes.set(id, bytes);
    return bytes;
  }

  private tokenOf(id: number): string {
    if (!this.tokens) {
      this.tokens = [];
      for (const [token, tokenId] of this.vocab()) this.tokens[tokenId] = token;
    }
    const token = this.tokens[id];
    if (token === undefined) throw new Error(`token id ${id} is not in the vocabulary`);
    return token;
  }
}

let BYTE_OF_CHAR: Map<string, number> | undefined;
