import type { ParseContext, WireFormat } from '../family.js';
import { pyJsonDumps } from '../json/py-json.js';
import { TOOL_CALLS_BEGIN, TOOL_CALLS_END, TOOL_CALL_BEGIN, TOOL_CALL_END, TOOL_SEP, extractDeepSeekToolCalls } from '../parsers/deepseek-v3-tools.js';
import { createIncrementalParser } from '../parsers/incremental.js';
import { cutAtStop } from '../parsers/stop.js';
import type { ParsedCompletion } from '../types.js';

/** DeepSeek-V3's generation_config.json eos_token_id. */
const STOP_TOKENS = ['<｜end▁of▁sentence｜>'] as const;

/**
 * DeepSeek-V3 as vLLM serves it with `--tool-call-parser deepseek_v3 --enable-auto-tool-choice` and the
 * chat template of its tokenizer_config.json. The model has no reasoning: everything before the tool calls is content.
 */
export const deepseekV3WireFormat: WireFormat = {
  stopTokens: STOP_TOKENS,
  templateMarker: TOOL_CALLS_BEGIN,

  /** The content, then the calls in the template's own layout (arguments as one line of JSON), then the eos token. */
  formatCompletion(answer) {
    const calls = (answer.toolCalls ?? []).map(
      (call) => `${TOOL_CALL_BEGIN}function${TOOL_SEP}${call.name}\n\`\`\`json\n${pyJsonDumps(call.arguments, { ensureAscii: false })}\n\`\`\`${TOOL_CALL_END}`,
    );
    const tools = calls.length > 0 ? `${TOOL_CALLS_BEGIN}${calls.join('\n')}${TOOL_CALLS_END}` : '';
    return `${answer.content ?? ''}${tools}${STOP_TOKENS[0]}`;
  },

  parseCompletion: parseDeepSeekV3,

  createStreamParser(ctx) {
    return createIncrementalParser({
      markers: [TOOL_CALLS_BEGIN, TOOL_CALL_BEGIN, TOOL_CALL_END, ...STOP_TOKENS],
      parseFinal: (text) => parseDeepSeekV3(text, ctx),
      // only complete calls match, and the content ends at the marker: a partial parse is final as far as it goes
      parsePartial: (text) => parseDeepSeekV3(text, ctx),
    });
  },
};

function parseDeepSeekV3(raw: string, ctx: ParseContext): ParsedCompletion {
  const text = cutAtStop(raw, STOP_TOKENS);
  if (ctx.toolsEnabled === false) return { reasoning_content: null, content: text, tool_calls: [] };
  const tools = extractDeepSeekToolCalls(text);
  return { reasoning_content: null, content: tools.toolsCalled ? tools.content : text, tool_calls: tools.toolCalls };
}
