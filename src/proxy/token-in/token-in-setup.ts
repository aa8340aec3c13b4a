import { resolveFamily, familyNames } from '../../families/registry.js';
import { UserError, errorMessage } from '../../util/errors.js';
import { isRecord } from '../../util/is-record.js';
import type { ForcedSampling, TokenInOptions, TransientPolicy, UpstreamKind } from '../types.js';

export interface TokenInUpstream {
  url: string;
  /** The built-in simulated model, speaking this family's wire (undefined: the ChatML model). */
  sim?: { family?: string };
}

export interface TokenInSetup {
  /** A Hugging Face model folder or a known family's name. */
  tokenizer?: string;
  upstreams: TokenInUpstream[];
  kind: UpstreamKind;
  apiKey?: string;
  sampling?: ForcedSampling;
  transient?: TransientPolicy;
  /** How the user spells the two settings, for errors: `model.token_in` or `--token-in`. */
  options: { tokenIn: string; tokenizer: string };
}

/** Used when an engine does not say its context length. */
const DEFAULT_MAX_MODEL_LEN = 32_768;

/**
 * The token-in mode's family and engine, checked before any call is served: the tokenizer folder or
 * family exists and has a chat template, and every upstream takes token-id prompts (one of one token is
 * sent). Each error names the setting and how to fix it.
 */
export async function tokenInOptions(setup: TokenInSetup): Promise<TokenInOptions> {
  const { options } = setup;
  if (setup.kind === 'openai-compatible') {
    throw new UserError(
      `${options.tokenIn}: an openai-compatible upstream takes no token-id prompts`,
      'serve the model with vLLM or SGLang (kind vllm or sglang), or leave token-in off',
    );
  }
  const sims = setup.upstreams.filter((u) => u.sim);
  if (sims.some((u) => !u.sim?.family)) {
    throw new UserError(
      `${options.tokenIn}: the built-in ChatML sim has no real template to render with`,
      `name a family on the sim, e.g. sim:oracle@qwen3 (known: ${familyNames().join(', ')})`,
    );
  }
  const simFamily = sims[0]?.sim?.family;
  const name = setup.tokenizer ?? simFamily;
  if (!name) {
    throw new UserError(
      `${options.tokenIn} needs the model's chat template and tokenizer`,
      `set ${options.tokenizer} to a Hugging Face model folder (tokenizer.json, tokenizer_config.json with a chat_template) or a family name: ${familyNames().join(', ')}`,
    );
  }
  const family = resolveFamily(name, options.tokenizer);
  if (simFamily && simFamily !== family.name) {
    throw new UserError(`${options.tokenizer} is ${family.name}, but the sim speaks ${simFamily}`, `drop ${options.tokenizer}, or make them the same`);
  }
  let maxModelLen = Infinity;
  for (const upstream of setup.upstreams) {
    maxModelLen = Math.min(maxModelLen, await probe(upstream, setup, family.stopTokenIds[0] as number));
  }
  return { family, kind: setup.kind, sampling: setup.sampling, maxModelLen, sendConversation: sims.length > 0, transient: setup.transient ?? 'keep' };
}

/** The engine's context length, after checking that it generates from a one-token prompt of ids. */
async function probe(upstream: TokenInUpstream, setup: TokenInSetup, token: number): Promise<number> {
  const base = upstream.url.endsWith('/') ? upstream.url : `${upstream.url}/`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(setup.apiKey ? { authorization: `Bearer ${setup.apiKey}` } : {}) };
  const models = await fetchJson(new URL('models', base), { headers }).catch(() => undefined);
  const listed = isRecord(models) && Array.isArray(models.data) && isRecord(models.data[0]) ? models.data[0].max_model_len : undefined;
  const maxModelLen = typeof listed === 'number' && listed > 0 ? listed : DEFAULT_MAX_MODEL_LEN;
  // the sim answers a token-id prompt only with the conversation it continues; its endpoint is known
  if (upstream.sim) return maxModelLen;
  const sglang = setup.kind === 'sglang';
  const path = sglang ? '../generate' : 'completions';
  const body = sglang
    ? { input_ids: [token], sampling_params: { max_new_tokens: 1 } }
    : { model: setup.sampling?.model, prompt: [token], max_tokens: 1, return_token_ids: true };
  let answer: unknown;
  try {
    answer = await fetchJson(new URL(path, base), { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    throw new UserError(
      `${setup.options.tokenIn}: the upstream ${upstream.url} does not take token-id prompts: POST ${path} ${errorMessage(err)}`,
      sglang
        ? 'serve the model with SGLang (its /generate takes input_ids), or leave token-in off'
        : 'serve the model with vLLM ≥ 0.10.2 (/v1/completions with a prompt of ids and return_token_ids), or leave token-in off',
    );
  }
  const choice = isRecord(answer) && Array.isArray(answer.choices) ? answer.choices[0] : undefined;
  const ids = sglang ? (isRecord(answer) ? answer.output_ids : undefined) : isRecord(choice) ? choice.token_ids : undefined;
  if (!Array.isArray(ids)) {
    throw new UserError(
      `${setup.options.tokenIn}: the upstream ${upstream.url} answered a token-id prompt without the sampled ids (${sglang ? 'output_ids' : 'choices[0].token_ids'})`,
      sglang
        ? 'use an SGLang that returns output_ids, or leave token-in off'
        : 'use vLLM ≥ 0.10.2, which returns token_ids when asked with return_token_ids, or leave token-in off',
    );
  }
  return maxModelLen;
}

async function fetchJson(url: URL, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}
