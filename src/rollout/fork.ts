import path from 'node:path';
import { parseSimSpec } from '../sim/policies/sim-spec.js';
import type { ScriptedAnswer } from '../proxy/session.js';
import { Store, type RolloutRecord } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { loadEpisode, type Episode } from './episode.js';
import { parseForkAnswer } from './fork-answer.js';
import { answeredPolicyCalls, recordedScript } from './recorded-script.js';
import { executeRun, STORE_FILE } from './run.js';

export { parseForkAnswer } from './fork-answer.js';

export interface ForkOptions {
  /** Which call's answer to replace (its seq). */
  atSeq: number;
  /** The edited answer, as JSON text: the call's protocol shape or a Chat assistant message (see parseForkAnswer). */
  answer: string;
  /**
   * Who answers after the fork: a sim: spec or an OpenAI-compatible base URL (…/v1); default the
   * original run's upstream (sim:oracle when that was a replay).
   */
  upstream?: string;
  /** Model name sent to that upstream; default the original run's model.name. */
  modelName?: string;
  signal?: AbortSignal;
  extraCaFile?: string;
  onLog?(line: string): void;
}

/**
 * Forks a recorded episode: the proxy answers its policy calls up to call `atSeq` itself (the recorded
 * answers, then the edited one at `atSeq`), and forwards every later call to the chosen upstream, a
 * sim: spec or a real model server. The fork is a new run in the same store, its rollout linked to
 * the original (parent, fork_seq).
 */
export async function forkRollout(outputDir: string, rolloutId: string, options: ForkOptions): Promise<{ fork: RolloutRecord; parent: RolloutRecord }> {
  const file = path.join(outputDir, STORE_FILE);
  let store = await Store.open(file);
  const { episode, script } = await planFork(store, outputDir, rolloutId, options.atSeq, options.answer, options).finally(() => store.close());
  const summary = await executeRun(episode.loaded, {
    fresh: true,
    parent: { rolloutId, kind: 'fork', atSeq: options.atSeq },
    script,
    signal: options.signal,
    extraCaFile: options.extraCaFile,
    onLog: options.onLog,
  });
  store = await Store.open(file);
  try {
    const [fork] = await store.currentRollouts(summary.runId);
    return { fork: fork!, parent: (await store.getRollout(rolloutId))! };
  } finally {
    await store.close();
  }
}

/**
 * Everything a fork needs, checked before anything runs: the episode with its upstream set to the
 * one that continues, and the script of answers the proxy gives the first policy calls (the recorded
 * ones before call `atSeq`, then the edited one). Throws a UserError naming the problem.
 */
export async function planFork(
  store: Store,
  outputDir: string,
  rolloutId: string,
  atSeq: number,
  answerText: string,
  choice: { upstream?: string; modelName?: string } = {},
): Promise<{ episode: Episode; script: ScriptedAnswer[] }> {
  const episode = await loadEpisode(store, outputDir, rolloutId);
  const calls = await store.listCalls(rolloutId);
  const target = calls.find((c) => c.seq === atSeq);
  if (!target)
    throw new UserError(`rollout ${rolloutId} has no call ${atSeq}`, calls.length ? `its calls are 1–${calls.length}` : 'it recorded no model calls');
  if (target.label !== 'policy') throw new UserError(`call ${atSeq} is a ${target.label} call: only policy calls can be forked`);
  const edited = parseForkAnswer(answerText, target);

  const model = episode.loaded.config.model;
  const original = { upstream: model.upstream, name: model.name };
  model.upstream = checkUpstream(choice.upstream ?? (model.upstream.startsWith('sim:replay:') ? 'sim:oracle' : model.upstream));
  // another upstream is one server: the original's replicas served the original's
  if (model.upstream !== original.upstream) model.replicas = undefined;
  if (choice.modelName) model.name = choice.modelName;
  // Recorded ids are real only for the tokenizer that made them: the same model behind the same upstream.
  const sameTokenizer =
    (original.upstream.startsWith('sim:') && model.upstream.startsWith('sim:')) || (original.upstream === model.upstream && original.name === model.name);

  const script = recordedScript(
    answeredPolicyCalls(calls).filter((c) => c.seq < atSeq),
    sameTokenizer,
  );
  // The edited answer was never sampled: no ids, so it is never trained on as the model's tokens.
  script.push({ message: edited, tokensFor: () => null });
  return { episode, script };
}

function checkUpstream(upstream: string): string {
  if (upstream.startsWith('sim:')) parseSimSpec(upstream);
  else if (!/^https?:\/\/[^/\s]+/.test(upstream)) {
    throw new UserError(
      `the upstream "${upstream}" to continue the fork with is neither a sim: spec nor an http(s) URL`,
      'use sim:oracle, sim:noisy:<p>, or the base URL of an OpenAI-compatible server such as http://127.0.0.1:8000/v1',
    );
  }
  return upstream;
}
