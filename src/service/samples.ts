import path from 'node:path';
import { rolloutSamples } from '../trajectory/run-samples.js';
import type { RunSource } from '../trajectory/run-source.js';
import { sampleJson } from '../trajectory/types.js';
import { VerlImageWriter } from '../trajectory/verl-images.js';
import type { SampleBuilder } from './rollout-service.js';

/**
 * Training samples of a finished rollout, from the trajectory builder, stamped with the request's weight version:
 * the rows `openforge export --format verl --images inline` writes, images (screenshots) inline as base64 data URLs.
 */
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
  const images = new VerlImageWriter({ mode: 'inline' });
  // the version recorded with the sample's calls (a resume named it) wins over the request's label
  return samples.map((s) => ({
    ...sampleJson(s),
    multi_modal_data: images.row(s).multi_modal_data,
    weight_version: s.weight_version ?? (meta.weightVersion === null ? null : String(meta.weightVersion)),
  }));
};
