import { parseContextOf, type ModelFamily } from '../../families/family.js';
import { parseJsonLossless, type JsonValue } from '../../families/json/json-value.js';
import { chatDelta } from '../../families/chat-delta.js';
import type { Answer, ChatMessage, StreamDelta, ToolSpec } from '../../families/types.js';
import { errorMessage } from '../../util/errors.js';
import type { PolicyAnswer } from '../policies/types.js';
import { SimHttpError } from '../sim-http-error.js';
import { newToolCallId } from '../tool-call-id.js';
import type { Completion, CompletionChunk, PromptRequest, SimModel } from './types.js';

/**
 * A real model family's wire, as vLLM serves it: the prompt rendered by the family's own chat template and
 * tokenized by its own tokenizer, the answer written as the model samples it and parsed back by the
 * family's reasoning and tool parsers, streamed token by token.
 */
export function familyModel(family: ModelFamily): SimModel {
  return {
    family: family.name,
    renderPrompt(request, generationPrompt) {
      const { enableThinking } = parseContextOf(request);
      let text: string;
      try {
        text = family.renderPrompt(request.messages as readonly ChatMessage[], request.tools as readonly ToolSpec[] | null | undefined, {
          addGenerationPrompt: generationPrompt,
          enableThinking,
          templateKwargs: otherKwargs(request.chat_template_kwargs),
        });
      } catch (err) {
        throw new SimHttpError(400, `the chat template of ${family.name} cannot render this request: ${errorMessage(err)}`, { code: 'invalid_request' });
      }
      return family.encode(text);
    },
    complete: (answer, request, maxTokens) => familyCompletion(family, answer, request, maxTokens),
    encode: (text) => family.encode(text),
    decode: (ids) => family.decode(ids),
    tokenText: (id) => family.decode([id]),
    alternative(id, position, k) {
      const candidate = (id + 7919 * k + 31 * position + 1) % family.vocabSize;
      return candidate === id ? (candidate + 1) % family.vocabSize : candidate;
    },
  };
}

function familyCompletion(family: ModelFamily, answer: PolicyAnswer, request: PromptRequest, maxTokens: number | undefined): Completion {
  const ctx = parseContextOf(request);
  const text = family.formatCompletion(familyAnswer(answer), { enableThinking: ctx.enableThinking });
  const all = family.encode(text);
  const ids = maxTokens !== undefined && all.length > maxTokens ? all.slice(0, maxTokens) : all;
  const parsed = family.parseCompletion(family.decode(ids), ctx);
  return {
    ids,
    finishReason: ids.length < all.length ? 'length' : parsed.tool_calls.length > 0 ? 'tool_calls' : 'stop',
    content: parsed.content,
    reasoning: parsed.reasoning_content,
    toolCalls: parsed.tool_calls,
    ...streamChunks(family, ids, ctx),
  };
}

/** The policy's answer as the model writes it: tool arguments as JSON values, and a thought before acting (a thinking model always has one). */
function familyAnswer(answer: PolicyAnswer): Answer {
  const calls = answer.toolCalls.map((call) => ({ name: call.name, arguments: toolArguments(call.arguments) }));
  const thought = calls.length > 0 ? `Next: ${calls.map((c) => c.name).join(', ')}.` : 'I can answer now.';
  return { reasoning: answer.reasoning ?? thought, content: answer.content, toolCalls: calls };
}

function toolArguments(json: string): JsonValue {
  try {
    return parseJsonLossless(json);
  } catch {
    return json;
  }
}

/**
 * One chunk per decoding step, as vLLM streams: the text each token adds goes through the family's
 * stream parser, and the step's deltas go out as one delta. Tokens whose text shows in no delta yet
 * (a marker, half a character) ride along in the next chunk; what is left rides in the finish chunk.
 */
function streamChunks(family: ModelFamily, ids: readonly number[], ctx: ReturnType<typeof parseContextOf>): { chunks: CompletionChunk[]; finishIds: number[] } {
  const parser = family.createStreamParser(ctx);
  const chunks: CompletionChunk[] = [];
  let pending: number[] = [];
  const text = family.streamDecoder();
  const emit = (deltas: StreamDelta[]): void => {
    const delta = chatDelta(deltas, newToolCallId);
    if (!delta) return;
    chunks.push({ delta, ids: pending });
    pending = [];
  };
  for (const id of ids) {
    pending.push(id);
    const added = text.push([id]);
    if (added) emit(parser.push(added));
  }
  const rest = text.flush();
  emit([...(rest ? parser.push(rest) : []), ...parser.finish()]);
  return { chunks, finishIds: pending };
}

/** chat_template_kwargs other than enable_thinking, for the template. */
function otherKwargs(kwargs: unknown): Record<string, JsonValue> | undefined {
  if (typeof kwargs !== 'object' || kwargs === null) return undefined;
  const { enable_thinking: _thinking, ...rest } = kwargs as Record<string, JsonValue>;
  return rest;
}
