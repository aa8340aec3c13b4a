import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import type { EnginePace } from './engine-pace.js';
import { SimHttpError } from './sim-http-error.js';

/** vLLM's 400 for a prompt and completion longer than the model's context. */
export function checkContextLength(promptTokens: number, maxTokens: number | undefined, maxModelLen: number, param: string): void {
  if (promptTokens + (maxTokens ?? 0) <= maxModelLen) return;
  throw new SimHttpError(
    400,
    `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${promptTokens + (maxTokens ?? 0)} tokens ` +
      `(${promptTokens} in the ${param}, ${maxTokens ?? 0} in the completion). Please reduce the length of the ${param} or completion.`,
    { param, code: 'context_length_exceeded' },
  );
}

/** A stream's events: the prompt's prefill, then its tokens, decoded alongside the other answers being decoded. */
export async function* afterPrefill<T>(
  input: T,
  engine: EnginePace,
  prefillMs: number,
  events: (input: T, stepMs: () => number) => AsyncGenerator<string>,
): AsyncGenerator<string> {
  if (prefillMs > 0) await sleep(prefillMs);
  const decoded = engine.begin();
  try {
    yield* events(input, engine.stepMs);
  } finally {
    decoded();
  }
}

export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
