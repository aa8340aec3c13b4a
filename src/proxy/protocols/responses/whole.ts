import type { ChatBody } from '../../../engine-wire/chat-wire.js';
import { messageItem, reasoningItem, responsesId, toolCallItem, type OutputItem } from './output-items.js';
import { finishOutcome, responseObject, responsesUsage, type ResponseHeader } from './response-object.js';
import type { ResponsesToolNames } from './tool-names.js';

/**
 * A whole upstream `chat.completion` as a `response`: the reasoning item, the message item and
 * one item per tool call, in the order the model generated them.
 */
export function responseFromCompletion(header: ResponseHeader, upstream: ChatBody, names: ResponsesToolNames): Record<string, unknown> {
  const choice = upstream.choices?.find((c) => (c.index ?? 0) === 0);
  const message = choice?.message ?? {};
  const outcome = finishOutcome(choice?.finish_reason);
  const output: OutputItem[] = [];
  const reasoning = message.reasoning_content || message.reasoning;
  if (typeof reasoning === 'string' && reasoning) output.push(reasoningItem(responsesId('rs'), reasoning, 'completed'));
  if (typeof message.content === 'string' && message.content) output.push(messageItem(responsesId('msg'), message.content, 'completed'));
  for (const call of message.tool_calls ?? []) {
    const tool = names.resolve(call.function?.name ?? '');
    const id = responsesId(tool.kind === 'custom' ? 'ctc' : 'fc');
    output.push(toolCallItem(id, call.id ?? responsesId('call'), tool, call.function?.arguments ?? '', 'completed'));
  }
  const last = output.at(-1);
  if (last && outcome.status === 'incomplete') last.status = 'incomplete';
  return responseObject(header, { ...outcome, output, usage: responsesUsage(upstream.usage) });
}
