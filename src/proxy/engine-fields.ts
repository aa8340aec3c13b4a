import type { ChatBody } from '../engine-wire/chat-wire.js';

/** Fields vLLM adds for token capture that no OpenAI client expects. */
const ENGINE_FIELDS = ['prompt_token_ids', 'token_ids', 'prompt_logprobs', 'kv_transfer_params', 'stop_reason'] as const;

export interface ClientView {
  /** The harness asked for logprobs itself. */
  logprobs: boolean;
}

/** Removes engine fields (and logprobs the harness did not ask for) in place, top level and per choice. */
export function stripEngineFields(body: ChatBody, view: ClientView): ChatBody {
  for (const field of ENGINE_FIELDS) delete body[field];
  if (Array.isArray(body.choices)) {
    for (const choice of body.choices) {
      if (typeof choice !== 'object' || choice === null) continue;
      for (const field of ENGINE_FIELDS) delete choice[field];
      // null, not absent: what an OpenAI server sends when logprobs were not requested
      if (!view.logprobs && 'logprobs' in choice) choice.logprobs = null;
    }
  }
  return body;
}
