import { answerFromAssistantMessage } from './assistant-answer.js';
import type { ChatMessage, MessageContent, ToolDefinition } from './chat-request.js';
import type { PolicyAnswer } from './policies/types.js';
import {
  IMAGE_PAD_ID,
  IM_END_ID,
  IM_START_ID,
  THINK_END_ID,
  THINK_START_ID,
  TOOL_CALL_END_ID,
  TOOL_CALL_START_ID,
  VISION_END_ID,
  VISION_START_ID,
} from '../families/chatml/special-tokens.js';
import { encode } from '../families/chatml/tokenizer.js';

/**
 * Qwen-style ChatML template. Every text run between two special tokens is tokenized on its own,
 * and an assistant message in the history is rendered by the same function that renders a
 * completion, so `renderPrompt(next)` starts with `renderPrompt(prev) ++ renderCompletion(answer)`
 * whenever the harness echoes the answer it got and appends to the conversation.
 */

/** Image placeholder length. A real VL model expands it by image size; the sim has no pixels to look at. */
export const IMAGE_PAD_COUNT = 16;

export type CompletionPiece =
  | { kind: 'structural'; ids: number[] }
  | { kind: 'reasoning'; ids: number[] }
  | { kind: 'content'; ids: number[] }
  | { kind: 'tool-header'; ids: number[]; toolIndex: number; toolName: string }
  | { kind: 'tool-arguments'; ids: number[]; toolIndex: number }
  | { kind: 'tool-trailer'; ids: number[]; toolIndex: number };

const TOOLS_PREAMBLE =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n';
const TOOLS_POSTAMBLE =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

/**
 * The prompt's ids as the template renders them; with `generationPrompt` (the default) ending with the
 * opening of the assistant turn the model completes, as vLLM's `add_generation_prompt`.
 */
export function renderPrompt(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[] | null, generationPrompt = true): number[] {
  const ids: number[] = [];
  let rest = messages;
  if (tools && tools.length > 0) {
    const first = messages[0];
    const hasSystem = first !== undefined && (first.role === 'system' || first.role === 'developer');
    const system = hasSystem ? contentIds(first.content) : [];
    const toolsText = TOOLS_PREAMBLE + tools.map((tool) => JSON.stringify(tool)).join('\n') + TOOLS_POSTAMBLE;
    pushTurn(ids, 'system', [...system, ...encode(system.length > 0 ? `\n\n${toolsText}` : toolsText)]);
    if (hasSystem) rest = messages.slice(1);
  }
  for (let i = 0; i < rest.length; i++) {
    const message = rest[i] as ChatMessage;
    switch (message.role) {
      case 'system':
      case 'developer':
        pushTurn(ids, 'system', contentIds(message.content));
        break;
      case 'user':
        pushTurn(ids, 'user', contentIds(message.content));
        break;
      case 'assistant':
        pushTurn(
          ids,
          'assistant',
          renderAssistantBody(answerFromAssistantMessage(message)).flatMap((p) => p.ids),
        );
        break;
      case 'tool': {
        // Consecutive tool results share one user turn, as in Qwen's template.
        const body: number[] = [];
        let j = i;
        for (let result = rest[j]; result?.role === 'tool'; result = rest[++j]) {
          if (j > i) append(body, encode('\n'));
          append(body, encode('<tool_response>\n'));
          append(body, contentIds(result.content));
          append(body, encode('\n</tool_response>'));
        }
        i = j - 1;
        pushTurn(ids, 'user', body);
        break;
      }
    }
  }
  if (generationPrompt) {
    ids.push(IM_START_ID);
    append(ids, encode('assistant\n'));
  }
  return ids;
}

/** The assistant turn as generated, ending with `<|im_end|>`. */
export function renderCompletion(answer: PolicyAnswer): number[] {
  return renderCompletionPieces(answer).flatMap((piece) => piece.ids);
}

/** The completion split by what each run of tokens is, for streaming deltas and truncation. */
export function renderCompletionPieces(answer: PolicyAnswer): CompletionPiece[] {
  return [...renderAssistantBody(answer), { kind: 'structural', ids: [IM_END_ID] }];
}

function renderAssistantBody(answer: PolicyAnswer): CompletionPiece[] {
  const pieces: CompletionPiece[] = [];
  if (answer.reasoning) {
    pieces.push(
      { kind: 'structural', ids: [THINK_START_ID, ...encode('\n')] },
      { kind: 'reasoning', ids: encode(answer.reasoning) },
      { kind: 'structural', ids: [...encode('\n'), THINK_END_ID, ...encode('\n\n')] },
    );
  }
  const content = answer.content ?? '';
  if (content) pieces.push({ kind: 'content', ids: encode(content) });
  answer.toolCalls.forEach((call, toolIndex) => {
    const separator = content || toolIndex > 0 ? encode('\n') : [];
    pieces.push(
      {
        kind: 'tool-header',
        ids: [...separator, TOOL_CALL_START_ID, ...encode(`\n{"name": ${JSON.stringify(call.name)}, "arguments": `)],
        toolIndex,
        toolName: call.name,
      },
      { kind: 'tool-arguments', ids: encode(call.arguments), toolIndex },
      { kind: 'tool-trailer', ids: [...encode('}\n'), TOOL_CALL_END_ID], toolIndex },
    );
  });
  return pieces;
}

function pushTurn(ids: number[], role: string, body: number[]): void {
  ids.push(IM_START_ID);
  append(ids, encode(`${role}\n`));
  append(ids, body);
  ids.push(IM_END_ID);
  append(ids, encode('\n'));
}

/** `push(...source)` overflows the call stack for long texts. */
function append(target: number[], source: readonly number[]): void {
  for (const id of source) target.push(id);
}

function contentIds(content: MessageContent): number[] {
  if (typeof content === 'string') return encode(content);
  const ids: number[] = [];
  for (const part of content) {
    if (part.type === 'text') append(ids, encode(part.text));
    else append(ids, [VISION_START_ID, ...new Array<number>(IMAGE_PAD_COUNT).fill(IMAGE_PAD_ID), VISION_END_ID]);
  }
  return ids;
}
