import type { ClientView } from '../records/call.js';
import type { ChatBody } from './chat-wire.js';

/** Fields vLLM adds for token capture that no OpenAI client expects. */
export const ENGINE_FIELDS: ReadonlySet<string> = new Set(['prompt_token_ids', 'token_ids', 'prompt_logprobs', 'kv_transfer_params', 'stop_reason']);

/** Removes engine fields (and logprobs the harness did not ask for) in place, top level and per choice. */
export function stripEngineFields(body: ChatBody, view: ClientView): ChatBody {
  // `in` first: deleting a member an object lacks still calls into V8's runtime, for every field of every event
  for (const field of ENGINE_FIELDS) if (field in body) delete body[field];
  if (Array.isArray(body.choices)) {
    for (const choice of body.choices) {
      if (typeof choice !== 'object' || choice === null) continue;
      for (const field of ENGINE_FIELDS) if (field in choice) delete choice[field];
      // null, not absent: what an OpenAI server sends when logprobs were not requested
      if (!view.logprobs && 'logprobs' in choice) choice.logprobs = null;
    }
  }
  return body;
}
