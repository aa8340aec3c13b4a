import type { RolloutRecord, Store, StoredCallRow } from '../store/store.js';
import { answerMessages, requestMessages } from './conversation.js';
import { isRecord } from '../util/is-record.js';
import { storedCall } from './stored-call.js';

/** One supervised fine-tuning example: the conversation the harness had, ending with the model's last answer. */
export interface SftRecord {
  messages: unknown[];
  tools: unknown[];
}

/**
 * The SFT example of a rollout: the request messages of its last successful policy call followed
 * by the answer the harness received, with the tools it declared. Undefined when the rollout has
 * no successful policy call. Token ids are not needed, so calls without them still count.
 */
export async function sftRecord(store: Store, rollout: RolloutRecord): Promise<SftRecord | undefined> {
  const answered: StoredCallRow[] = [];
  for await (const page of store.callPagesOf(rollout.id)) {
    for (const row of page) {
      // token ids are not needed: not kept, so memory stays small however long the rollout
      if (row.label === 'policy' && row.status === 200 && row.error === null)
        answered.push({ ...row, prompt_ids: null, completion_ids: null, logprobs: null, stored_prompt_ids: null });
    }
  }
  // the last answered call that has a response (the scan does not read responses: they are looked up from the end)
  let last: ReturnType<typeof storedCall> | undefined;
  let response: unknown = null;
  for (let i = answered.length - 1; i >= 0 && response === null; i--) {
    last = storedCall(store, answered[i]!);
    response = await last.response();
  }
  if (!last || response === null) return undefined;
  const request = await last.request();
  const answer = answerMessages(response, last.protocol).map(withoutEmptyFields);
  if (answer.length === 0) return undefined;
  const tools = isRecord(request) && Array.isArray(request.tools) ? request.tools : [];
  return { messages: [...requestMessages(request, last.protocol), ...answer], tools };
}

/** `content: null`, `tool_calls: []` and the like, as APIs return them, are noise in a dataset. */
function withoutEmptyFields(message: unknown): unknown {
  if (!isRecord(message)) return message;
  return Object.fromEntries(Object.entries(message).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)));
}
