import path from 'node:path';
import { rolloutSamples } from '../trajectory/run-samples.js';
import type { RunSource } from '../trajectory/run-source.js';
import { sampleJson } from '../trajectory/types.js';
import type { SampleBuilder } from './rollout-service.js';

/** Training samples of a finished rollout, from the trajectory builder, stamped with the request's weight version. */
export const samplesForService: SampleBuilder = async (store, rolloutId, meta) => {
  const rollout = await store.getRollout(rolloutId);
  const run = rollout && (await store.getRun(rollout.runId));
  if (!rollout || !run) throw new Error(`rollout ${rolloutId} is not in the service's store`);
  const source: RunSource = {
    store,
    dir: path.dirname(store.file),
    run,
    rollouts: [rollout],
    upstream: '',
    taskPaths: [],
    simulated: meta.simulated,
    k: 1,
    passThreshold: 1,
    harness: rollout.harness,
    interrupted: false,
  };
  const { samples } = await rolloutSamples(source, rollout);
  // the version recorded with the sample's calls (a resume named it) wins over the request's label
  return samples.map((s) => ({ ...sampleJson(s), weight_version: s.weight_version ?? (meta.weightVersion === null ? null : String(meta.weightVersion)) }));
};
