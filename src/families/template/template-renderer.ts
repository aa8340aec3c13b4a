/**
 * The part every template-driven family shares: tokenizer files from an npm
 * package, a chat template, vLLM's request normalisation, and the context
 * transformers' apply_chat_template passes (messages, tools, documents,
 * add_generation_prompt, the special-tokens map, chat_template_kwargs).
 */
import { ChatTemplate, type RenderContext, type TemplateValue } from './chat-template.js';
import type { RenderOptions } from '../family.js';
import { type LoadedTokenizer } from '../tokenizer/hf-tokenizer.js';
import type { ChatMessage, ToolSpec } from '../types.js';
import { type IngestOptions, ingestMessages, ingestTools } from './vllm-ingest.js';

/** transformers' `special_tokens_map`: the configured special tokens that are set. */
export function specialTokensMap(config: Record<string, unknown>): Record<string, TemplateValue> {
  const out: Record<string, TemplateValue> = {};
  const tokenText = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : v && typeof v === 'object' && 'content' in v ? String((v as { content: unknown }).content) : undefined;
  for (const key of ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token']) {
    const t = tokenText(config[key]);
    if (t !== undefined) out[key] = t;
  }
  const extra = config['additional_special_tokens'];
  if (Array.isArray(extra) && extra.length > 0) out['additional_special_tokens'] = extra.map((t) => tokenText(t) ?? '');
  return out;
}

export interface TemplateRendererConfig {
  template: ChatTemplate;
  tokenizer: LoadedTokenizer;
  ingest?: IngestOptions;
}

export class TemplateRenderer {
  private readonly special: Record<string, TemplateValue>;

  constructor(private readonly cfg: TemplateRendererConfig) {
    this.special = specialTokensMap(cfg.tokenizer.config);
  }

  /** The variables the template sees, exactly as transformers would pass them. */
  context(messages: readonly ChatMessage[], tools: readonly ToolSpec[] | null | undefined, options: RenderOptions): RenderContext {
    const msgs = ingestMessages(messages, this.cfg.ingest);
    const ctx: RenderContext = {
      ...this.special,
      messages: msgs,
      tools: ingestTools(tools),
      documents: null,
      add_generation_prompt: options.addGenerationPrompt,
      ...options.templateKwargs,
    };
    if (options.enableThinking !== undefined) ctx['enable_thinking'] = options.enableThinking;
    return ctx;
  }

  render(messages: readonly ChatMessage[], tools: readonly ToolSpec[] | null | undefined, options: RenderOptions): string {
    return this.cfg.template.render(this.context(messages, tools, options));
  }
}
