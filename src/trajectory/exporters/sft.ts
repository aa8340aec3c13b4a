import { sftRecord } from '../sft.js';
import { CorruptCallError } from '../trajectory-call.js';
import { JsonlSink } from '../jsonl-sink.js';
import { writeAll, type Exporter } from './types.js';

/** Chat conversations for supervised fine-tuning: one JSONL row per rollout, its messages and tools. */
export const sftExporter: Exporter = {
  name: 'sft',
  description: 'chat conversations for SFT, one row per rollout',
  fileTypes: ['jsonl'],
  async write(job) {
    const sink = new JsonlSink<unknown>(job.file);
    await writeAll(sink, async () => {
      for (const rollout of job.rollouts) {
        let record;
        try {
          record = await sftRecord(job.source.store, rollout);
        } catch (err) {
          if (!(err instanceof CorruptCallError)) throw err;
          job.skipOrFail(err);
          continue;
        }
        if (!record) job.countRollout(0, 0);
        else {
          await sink.write(record);
          job.countRollout(0, 1);
        }
      }
      job.report.rows = sink.rows;
    });
  },
};
