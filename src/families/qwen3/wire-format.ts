import type { ParseContext, WireFormat } from '../family.js';
import { pyJsonDumps } from '../json/py-json.js';
import { TOOL_CALL_END, TOOL_CALL_START, extractHermesToolCalls } from '../parsers/hermes-tools.js';
import { createIncrementalParser } from '../parsers/incremental.js';
import { extractQwen3Reasoning } from '../parsers/qwen3-reasoning.js';
import { cutAtStop } from '../parsers/stop.js';
import type { ParsedCompletion } from '../types.js';

/** Qwen3's generation_config.json eos_token_id: `<|im_end|>`, `<|endoftext|>`. */
const STOP_TOKENS = ['<|im_end|>', '<|endoftext|>'] as const;

/**
 * Qwen3 (hybrid thinking, hermes tool calls) as vLLM serves it with `--reasoning-parser qwen3
 * --tool-call-parser hermes --enable-auto-tool-choice`.
 */
export const qwen3WireFormat: WireFormat = {
  stopTokens: STOP_TOKENS,
  templateMarker: TOOL_CALL_START,

  /**
   * What Qwen3 samples after `<|im_start|>assistant\n`: a think block (unless thinking is off, when the
   * prompt already holds an empty one), the content, then each call as the template writes history
   * tool calls ("\n" between parts, `tojson` arguments), then `<|im_end|>`.
   */
  formatCompletion(answer, options) {
    let out = options.enableThinking === false ? '' : `<think>\n${answer.reasoning ?? ''}\n</think>\n\n`;
    const content = answer.content ?? '';
    out += content;
    (answer.toolCalls ?? []).forEach((call, i) => {
      if (i > 0 || content) out += '\n';
      out += `${TOOL_CALL_START}\n{"name": ${pyJsonDumps(call.name, { ensureAscii: false })}, "arguments": ${pyJsonDumps(call.arguments, { ensureAscii: false })}}\n${TOOL_CALL_END}`;
    });
    return out + STOP_TOKENS[0];
  },

  parseCompletion: parseQwen3,

  createStreamParser(ctx) {
    return createIncrementalParser({
      markers: ['<think>', '</think>', TOOL_CALL_START, TOOL_CALL_END, ...STOP_TOKENS],
      parseFinal: (text) => parseQwen3(text, ctx),
      parsePartial: (raw) => {
        const text = cutAtStop(raw, STOP_TOKENS);
        const { reasoning, content } = extractQwen3Reasoning(text, { thinkingEnabled: ctx.enableThinking });
        const body = content ?? '';
        const start = body.indexOf(TOOL_CALL_START);
        if (ctx.toolsEnabled === false || start < 0) return { reasoning_content: reasoning, content, tool_calls: [] };
        const lastEnd = body.lastIndexOf(TOOL_CALL_END);
        const closed = lastEnd > start ? extractHermesToolCalls(body.slice(0, lastEnd + TOOL_CALL_END.length)) : null;
        return { reasoning_content: reasoning, content: body.slice(0, start) || null, tool_calls: closed?.toolsCalled ? closed.toolCalls : [] };
      },
    });
  },
};

/** Stop cut, then the reasoning parser, then (with tools) the hermes parser on the content, as vLLM's serving_chat chains them. */
function parseQwen3(raw: string, ctx: ParseContext): ParsedCompletion {
  const text = cutAtStop(raw, STOP_TOKENS);
  const { reasoning, content } = extractQwen3Reasoning(text, { thinkingEnabled: ctx.enableThinking });
  if (ctx.toolsEnabled === false) return { reasoning_content: reasoning, content, tool_calls: [] };
  const tools = extractHermesToolCalls(content ?? '');
  if (tools.toolsCalled) return { reasoning_content: reasoning, content: tools.content, tool_calls: tools.toolCalls };
  return { reasoning_content: reasoning, content: tools.content ? tools.content : content, tool_calls: [] };
}
