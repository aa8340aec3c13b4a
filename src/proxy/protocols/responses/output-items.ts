import { randomBytes } from 'node:crypto';
import { customToolInput, type ResponsesToolRef } from './tool-names.js';

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: [];
  content: { type: 'reasoning_text'; text: string }[];
  encrypted_content: null;
  status: ItemStatus;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: [];
  logprobs: [];
}

export interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  namespace?: string;
  arguments: string;
  status: ItemStatus;
}

export interface CustomToolCallItem {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
  status: ItemStatus;
}

export type OutputItem = ReasoningItem | MessageItem | FunctionCallItem | CustomToolCallItem;

/** An id in OpenAI's style: `resp_…`, `msg_…`, `fc_…`. */
export function responsesId(prefix: 'resp' | 'msg' | 'rs' | 'fc' | 'ctc' | 'call'): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

export function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** With `text` undefined the item is announced empty, as in `response.output_item.added`. */
export function reasoningItem(id: string, text: string | undefined, status: ItemStatus): ReasoningItem {
  return {
    type: 'reasoning',
    id,
    summary: [],
    content: text === undefined ? [] : [{ type: 'reasoning_text', text }],
    encrypted_content: null,
    status,
  };
}

/** With `text` undefined the item is announced empty, as in `response.output_item.added`. */
export function messageItem(id: string, text: string | undefined, status: ItemStatus): MessageItem {
  return { type: 'message', id, role: 'assistant', status, content: text === undefined ? [] : [outputText(text)] };
}

/** The item for a model's tool call: a function call, or a custom tool call carrying the raw input. */
export function toolCallItem(id: string, callId: string, tool: ResponsesToolRef, args: string, status: ItemStatus): FunctionCallItem | CustomToolCallItem {
  if (tool.kind === 'custom') {
    return { type: 'custom_tool_call', id, call_id: callId, name: tool.name, input: customToolInput(args), status };
  }
  const item: FunctionCallItem = { type: 'function_call', id, call_id: callId, name: tool.name, arguments: args, status };
  if (tool.namespace) item.namespace = tool.namespace;
  return item;
}
