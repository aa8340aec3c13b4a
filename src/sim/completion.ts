import { renderCompletionPieces, type CompletionPiece } from './chat-template.js';
import type { PolicyAnswer } from './policies/types.js';
import { decode } from '../families/chatml/tokenizer.js';

export type FinishReason = 'stop' | 'tool_calls' | 'length';

/** One generated assistant turn: its tokens, and the message a vLLM tool/reasoning parser would return for them. */
export interface Completion {
  pieces: CompletionPiece[];
  ids: number[];
  finishReason: FinishReason;
  content: string | null;
  reasoning: string | null;
  toolCalls: { name: string; arguments: string }[];
}

/**
 * Renders the answer and cuts it at `maxTokens` (finish reason "length"). A tool call whose
 * header was cut off is not reported; one cut inside its arguments keeps the partial arguments,
 * as a streaming client would have seen them.
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
    pieces,
    ids: pieces.flatMap((p) => p.ids),
    finishReason: truncated ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop',
    content: content || toolCalls.length === 0 ? content : null,
    reasoning: reasoning || null,
    toolCalls,
  };
}
