import type { ChatBody, ChatToolCallDelta, ChatUsage } from '../../../engine-wire/chat-wire.js';
import { messageItem, outputText, reasoningItem, responsesId, toolCallItem, type ItemStatus, type OutputItem } from './output-items.js';
import { finishOutcome, responseObject, responsesUsage, type ResponseHeader, type ResponseState } from './response-object.js';
import type { ResponsesToolNames, ResponsesToolRef } from './tool-names.js';
import type { SseEvent, StreamTranslator } from '../types.js';

interface TextSlot {
  kind: 'reasoning' | 'message';
  id: string;
  outputIndex: number;
  text: string;
  status: ItemStatus;
}

interface CallSlot {
  kind: 'call';
  id: string;
  /** -1 until the call's name is known and it is announced. */
  outputIndex: number;
  callId: string;
  chatName: string;
  tool: ResponsesToolRef;
  arguments: string;
  status: ItemStatus;
}

type Slot = TextSlot | CallSlot;

/**
 * Upstream Chat chunks → Responses SSE events, written as each chunk arrives. Reasoning and text
 * stream as deltas of one item each; every tool call is its own item, announced once its name is
 * known and closed when the model finishes (tool calls may interleave upstream). Every item ends
 * with `response.output_item.done`, which is all Codex builds items from, and the stream with
 * `response.completed`, `response.incomplete` or `response.failed`.
 */
export class ResponsesStreamTranslator implements StreamTranslator {
  private sequence = 0;
  private started = false;
  /** Announced items, in output order. */
  private readonly slots: Slot[] = [];
  private text: TextSlot | null = null;
  /** Tool calls by the upstream's tool call index. */
  private readonly calls = new Map<number, CallSlot>();
  private usage: ChatUsage | null = null;
  private finishReason: string | null = null;
  private final: Record<string, unknown> | null = null;

  constructor(
    private readonly header: ResponseHeader,
    private readonly names: ResponsesToolNames,
  ) {}

  push(chunk: ChatBody): SseEvent[] {
    const events = this.begin();
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return events;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content || delta.reasoning;
    if (typeof reasoning === 'string' && reasoning) this.appendText('reasoning', reasoning, events);
    if (typeof delta.content === 'string' && delta.content) this.appendText('message', delta.content, events);
    for (const call of delta.tool_calls ?? []) this.appendCall(call, events);
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.closeAll(events);
    }
    return events;
  }

  end(): SseEvent[] {
    const events = this.begin();
    this.closeAll(events);
    const outcome = finishOutcome(this.finishReason);
    this.final = this.response({ ...outcome, output: this.items(), usage: responsesUsage(this.usage) });
    events.push(this.event(outcome.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: this.final }));
    return events;
  }

  fail(message: string): SseEvent[] {
    const events = this.begin();
    // items still open are left out: Codex would act on a half-generated tool call
    const output = this.items().filter((item) => item.status !== 'in_progress');
    this.final = this.response({ status: 'failed', output, usage: responsesUsage(this.usage), error: { code: 'server_error', message } });
    events.push(this.event('response.failed', { response: this.final }));
    return events;
  }

  assembled(): unknown {
    return this.final ?? this.response({ status: 'in_progress', output: this.items(), usage: responsesUsage(this.usage) });
  }

  private begin(): SseEvent[] {
    if (this.started) return [];
    this.started = true;
    const response = this.response({ status: 'in_progress', output: [], usage: null });
    return [this.event('response.created', { response }), this.event('response.in_progress', { response })];
  }

  private appendText(kind: TextSlot['kind'], delta: string, events: SseEvent[]): void {
    let slot = this.text;
    if (slot?.kind !== kind) {
      this.closeText('completed', events);
      slot = this.openText(kind, events);
    }
    slot.text += delta;
    const at = { item_id: slot.id, output_index: slot.outputIndex, content_index: 0 };
    if (kind === 'message') events.push(this.event('response.output_text.delta', { ...at, delta, logprobs: [] }));
    else events.push(this.event('response.reasoning_text.delta', { ...at, delta }));
  }

  private openText(kind: TextSlot['kind'], events: SseEvent[]): TextSlot {
    const slot: TextSlot = { kind, id: responsesId(kind === 'message' ? 'msg' : 'rs'), outputIndex: this.slots.length, text: '', status: 'in_progress' };
    this.slots.push(slot);
    this.text = slot;
    events.push(this.event('response.output_item.added', { output_index: slot.outputIndex, item: this.item(slot, true) }));
    const part = kind === 'message' ? outputText('') : { type: 'reasoning_text', text: '' };
    events.push(this.event('response.content_part.added', { item_id: slot.id, output_index: slot.outputIndex, content_index: 0, part }));
    return slot;
  }

  private closeText(status: ItemStatus, events: SseEvent[]): void {
    const slot = this.text;
    if (!slot) return;
    this.text = null;
    slot.status = status;
    const at = { item_id: slot.id, output_index: slot.outputIndex, content_index: 0 };
    if (slot.kind === 'message') {
      events.push(this.event('response.output_text.done', { ...at, text: slot.text, logprobs: [] }));
      events.push(this.event('response.content_part.done', { ...at, part: outputText(slot.text) }));
    } else {
      events.push(this.event('response.reasoning_text.done', { ...at, text: slot.text }));
      events.push(this.event('response.content_part.done', { ...at, part: { type: 'reasoning_text', text: slot.text } }));
    }
    events.push(this.event('response.output_item.done', { output_index: slot.outputIndex, item: this.item(slot) }));
  }

  private appendCall(delta: ChatToolCallDelta, events: SseEvent[]): void {
    const index = delta.index ?? 0;
    let slot = this.calls.get(index);
    if (!slot) {
      this.closeText('completed', events);
      slot = { kind: 'call', id: '', outputIndex: -1, callId: '', chatName: '', tool: { kind: 'function', name: '' }, arguments: '', status: 'in_progress' };
      this.calls.set(index, slot);
    }
    if (delta.id && !slot.callId) slot.callId = delta.id;
    const fragment = delta.function?.arguments ?? '';
    slot.arguments += fragment;
    if (slot.outputIndex < 0) {
      if (delta.function?.name) slot.chatName = delta.function.name;
      if (!slot.chatName) return;
      this.announceCall(slot, events);
      // fragments that came before the name go out now, as one delta
      if (slot.arguments) this.argumentsDelta(slot, slot.arguments, events);
    } else if (fragment) {
      this.argumentsDelta(slot, fragment, events);
    }
  }

  private announceCall(slot: CallSlot, events: SseEvent[]): void {
    slot.tool = this.names.resolve(slot.chatName);
    slot.id = responsesId(slot.tool.kind === 'custom' ? 'ctc' : 'fc');
    slot.callId ||= responsesId('call');
    slot.outputIndex = this.slots.length;
    this.slots.push(slot);
    events.push(this.event('response.output_item.added', { output_index: slot.outputIndex, item: this.item(slot, true) }));
  }

  /** A custom tool's input is JSON-escaped inside the arguments, so it is sent whole when the call closes. */
  private argumentsDelta(slot: CallSlot, delta: string, events: SseEvent[]): void {
    if (slot.tool.kind === 'custom') return;
    events.push(this.event('response.function_call_arguments.delta', { item_id: slot.id, output_index: slot.outputIndex, delta }));
  }

  private closeAll(events: SseEvent[]): void {
    const status = finishOutcome(this.finishReason).status === 'incomplete' ? 'incomplete' : 'completed';
    this.closeText(status, events);
    const open = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, slot]) => slot);
    for (const slot of open) {
      if (slot.status !== 'in_progress') continue;
      if (slot.outputIndex < 0) this.announceCall(slot, events);
      slot.status = status;
      const item = this.item(slot);
      const at = { item_id: slot.id, output_index: slot.outputIndex };
      if (item.type === 'custom_tool_call') {
        events.push(this.event('response.custom_tool_call_input.done', { ...at, input: item.input }));
      } else if (item.type === 'function_call') {
        events.push(this.event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }));
      }
      events.push(this.event('response.output_item.done', { output_index: slot.outputIndex, item }));
    }
  }

  /** The slot's item now; `announced` gives the empty item of `response.output_item.added`. */
  private item(slot: Slot, announced = false): OutputItem {
    if (slot.kind === 'call') return toolCallItem(slot.id, slot.callId, slot.tool, announced ? '' : slot.arguments, slot.status);
    const text = announced ? undefined : slot.text;
    return slot.kind === 'message' ? messageItem(slot.id, text, slot.status) : reasoningItem(slot.id, text, slot.status);
  }

  private items(): OutputItem[] {
    return this.slots.map((slot) => this.item(slot));
  }

  private response(state: ResponseState): Record<string, unknown> {
    return responseObject(this.header, state);
  }

  private event(type: string, payload: Record<string, unknown>): SseEvent {
    return { event: type, data: JSON.stringify({ type, sequence_number: this.sequence++, ...payload }) };
  }
}
