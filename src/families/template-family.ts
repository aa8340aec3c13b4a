import type { CompletionStreamParser, ModelFamily, ParseContext, RenderOptions, WireFormat } from './family.js';
import { ChatTemplate, type ChatTemplateOptions } from './template/chat-template.js';
import { TemplateRenderer } from './template/template-renderer.js';
import type { IngestOptions } from './template/vllm-ingest.js';
import type { LoadedTokenizer } from './tokenizer/hf-tokenizer.js';
import type { Answer, ChatMessage, ParsedCompletion, ToolSpec } from './types.js';

export interface TemplateFamilySpec {
  name: string;
  tokenizer: LoadedTokenizer;
  /** The chat template's source, as the tokenizer_config.json holds it. */
  template: string;
  format: WireFormat;
  templateOptions?: ChatTemplateOptions;
  ingest?: IngestOptions;
}

/** A family whose prompts are its Hugging Face chat template rendered as transformers renders it, on requests read as vLLM reads them. */
export function createTemplateFamily(spec: TemplateFamilySpec): ModelFamily {
  const { tokenizer, format } = spec;
  const renderer = new TemplateRenderer({ template: new ChatTemplate(spec.template, spec.templateOptions), tokenizer, ingest: spec.ingest });
  const stopTokenIds = format.stopTokens.map((token) => {
    const id = tokenizer.tokenToId(token);
    if (id === undefined) throw new Error(`${spec.name}: the tokenizer has no token ${token}`);
    return id;
  });
  return {
    name: spec.name,
    tokenizer,
    stopTokenIds,
    endOfTurn: format.stopTokens[0] as string,
    vocabSize: tokenizer.vocabSize,
    renderPrompt: (messages: readonly ChatMessage[], tools: readonly ToolSpec[] | null | undefined, options: RenderOptions): string =>
      renderer.render(messages, tools, options),
    encode: (text: string): number[] => tokenizer.encode(text),
    decode: (ids: readonly number[]): string => tokenizer.decode(ids),
    streamDecoder: () => tokenizer.streamDecoder(),
    formatCompletion: (answer: Answer, options: { enableThinking?: boolean } = {}): string => format.formatCompletion(answer, options),
    parseCompletion: (text: string, ctx: ParseContext = {}): ParsedCompletion => format.parseCompletion(text, ctx),
    createStreamParser: (ctx: ParseContext = {}): CompletionStreamParser => format.createStreamParser(ctx),
  };
}
