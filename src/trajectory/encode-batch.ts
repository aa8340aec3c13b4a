import type { RolloutRecord } from '../store/store.js';
import { ByteBuffer } from './byte-buffer.js';
import type { EncodedRollout } from './export-messages.js';
import { writeJsonLine } from './json-line.js';
import type { VerlImageWriter } from './verl-images.js';
import { runSamples, type SampleSource } from './run-samples.js';

/** A batch of ~2 000 calls of long conversations encodes to a few MiB: start there and grow. */
export const BATCH_BYTES = 8 << 20;

/** The veRL JSONL lines of a batch of rollouts, and what became of each rollout (in order). */
export async function encodeRollouts(
  source: SampleSource,
  rollouts: readonly RolloutRecord[],
  out: ByteBuffer,
  images: VerlImageWriter,
): Promise<{ rows: number; rollouts: EncodedRollout[] }> {
  const encoded: EncodedRollout[] = [];
  let rows = 0;
  for await (const result of runSamples(source, rollouts)) {
    if ('corrupt' in result) {
      const { rolloutId, seq, problem } = result.corrupt;
      encoded.push({ calls: 0, samples: 0, corrupt: { rolloutId, seq, problem } });
      continue;
    }
    for (const sample of result.samples) writeJsonLine(images.row(sample), out);
    rows += result.samples.length;
    encoded.push({ calls: result.calls, samples: result.samples.length });
  }
  return { rows, rollouts: encoded };
}
