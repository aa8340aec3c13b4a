/**
 * How long the simulated engine takes over an answer, as a GPU engine with continuous batching does: the
 * prompt's prefill before the first token, then one decode step per generated token. A step produces a
 * token for every answer being decoded, so when the engine's decode throughput is set, a step lasts longer
 * as more answers share it.
 */
export interface EnginePaceOptions {
  /** The shortest decode step (ms): an engine's time per token with nothing else to do. */
  tokenDelayMs?: number;
  /** Prompt tokens prefilled a second; unset: no prefill time. */
  prefillTokensPerSecond?: number;
  /** Tokens the engine decodes a second across all the answers it is decoding; unset: no limit. */
  decodeTokensPerSecond?: number;
}

export interface EnginePace {
  prefillMs(promptTokens: number): number;
  /** One decode step, now: `tokenDelayMs`, or the answers being decoded over the decode throughput if longer. */
  stepMs(): number;
  /** Counts an answer as decoding (its prefill done) until the returned function is called. */
  begin(): () => void;
}

export function enginePace(options: EnginePaceOptions): EnginePace {
  const tokenDelayMs = options.tokenDelayMs ?? 0;
  const prefillRate = positiveRate('prefillTokensPerSecond', options.prefillTokensPerSecond);
  const decodeRate = positiveRate('decodeTokensPerSecond', options.decodeTokensPerSecond);
  let decoding = 0;
  return {
    prefillMs: (promptTokens) => (prefillRate === undefined ? 0 : (promptTokens / prefillRate) * 1000),
    stepMs: () => (decodeRate === undefined ? tokenDelayMs : Math.max(tokenDelayMs, (decoding / decodeRate) * 1000)),
    begin: () => {
      decoding += 1;
      let ended = false;
      return () => {
        if (!ended) decoding -= 1;
        ended = true;
      };
    },
  };
}

function positiveRate(name: string, rate: number | undefined): number | undefined {
  if (rate !== undefined && !(rate > 0 && Number.isFinite(rate))) throw new RangeError(`${name}: use a number of tokens a second above 0, got ${rate}`);
  return rate;
}
