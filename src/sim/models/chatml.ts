import { renderCompletionPieces, renderPrompt, type CompletionPiece } from '../chat-template.js';
import { newToolCallId } from '../tool-call-id.js';
import type { PolicyAnswer } from '../policies/types.js';
import type { Completion, CompletionChunk, SimModel } from './types.js';
import { TEXT_ID_OFFSET } from '../../families/chatml/special-tokens.js';
import { decode, encode, tokenText } from '../../families/chatml/tokenizer.js';

/** The built-in model: a ChatML template and tokenizer of the project's own (`src/families/chatml`). */
export const chatmlModel: SimModel = {
  family: 'chatml',
  renderPrompt: (request, generationPrompt) => renderPrompt(request.messages, request.tools, generationPrompt),
  complete: (answer, _request, maxTokens) => buildCompletion(answer, maxTokens),
  encode,
  decode,
  tokenText,
  /** A printable ASCII token other than `id`. */
  alternative(id, position, k) {
    const candidate = TEXT_ID_OFFSET + 0x21 + ((id + position + 7 * k) % 94);
    return candidate === id ? TEXT_ID_OFFSET + 0x21 + ((id + position + 7 * k + 1) % 94) : candidate;
  },
};

/**
 * Renders the answer and cuts it at `maxTokens`. A tool call whose header was cut off is not
 * reported; one cut inside its arguments keeps the partial arguments, as a streaming client would
 * have seen them.
 */
export function buildCompletion(answer: PolicyAnswer, maxTokens?: number): Completion {
  const full = renderCompletionPieces(answer);
  const pieces: CompletionPiece[] = [];
  let budget = maxTokens ?? Infinity;
  for (const piece of full) {
    if (budget <= 0) break;
    if (piece.ids.length <= budget) pieces.push(piece);
    else if (piece.kind === 'tool-header') pieces.push({ kind: 'structural', ids: piece.ids.slice(0, budget) });
    else pieces.push({ ...piece, ids: piece.ids.slice(0, budget) });
    budget -= piece.ids.length;
  }
  const truncated = budget < 0 || pieces.length < full.length;

  const textOf = (kind: 'content' | 'reasoning'): string => decode(pieces.flatMap((p) => (p.kind === kind ? p.ids : [])));
  const toolCalls = pieces.flatMap((p) =>
    p.kind === 'tool-header'
      ? [{ name: p.toolName, arguments: decode(pieces.flatMap((a) => (a.kind === 'tool-arguments' && a.toolIndex === p.toolIndex ? a.ids : []))) }]
      : [],
  );
  const content = textOf('content');
  const reasoning = textOf('reasoning');
  return {
    ids: pieces.flatMap((p) => p.ids),
    finishReason: truncated ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop',
    content: content || toolCalls.length === 0 ? content : null,
    reasoning: reasoning || null,
    toolCalls,
    ...streamChunks(pieces),
  };
}

/**
 * One chunk per generated token, a tool call's name in one chunk and its arguments token by token.
 * Tokens that show in no delta (`<think>`, `</tool_call>`, `<|im_end|>`, …) ride along in the next chunk.
 */
function streamChunks(pieces: CompletionPiece[]): { chunks: CompletionChunk[]; finishIds: number[] } {
  const chunks: CompletionChunk[] = [];
  let pending: number[] = [];
  const take = (ids: number[]): number[] => {
    const all = [...pending, ...ids];
    pending = [];
    return all;
  };
  for (const piece of pieces) {
    switch (piece.kind) {
      case 'structural':
      case 'tool-trailer':
        pending.push(...piece.ids);
        break;
      case 'tool-header':
        chunks.push({
          delta: { tool_calls: [{ index: piece.toolIndex, id: newToolCallId(), type: 'function', function: { name: piece.toolName, arguments: '' } }] },
          ids: take(piece.ids),
        });
        break;
      case 'content':
      case 'reasoning':
      case 'tool-arguments':
        for (const id of piece.ids) {
          const text = tokenText(id);
          const delta =
            piece.kind === 'content'
              ? { content: text }
              : piece.kind === 'reasoning'
                ? { reasoning_content: text }
                : { tool_calls: [{ index: piece.toolIndex, function: { arguments: text } }] };
          chunks.push({ delta, ids: take([id]) });
        }
        break;
    }
  }
  return { chunks, finishIds: pending };
}
