import type { RolloutRecord, RunRecord } from '../store/store.js';
import type { ImageOutput } from './verl-images.js';

/** What an export worker is started with. */
export interface ExportWorkerInit {
  storeFile: string;
  run: RunRecord;
  simulated: boolean;
  images: ImageOutput;
}

export type ToExportWorker =
  | { kind: 'batch'; id: number; rollouts: RolloutRecord[] }
  /** Memory of an earlier batch, written out: the worker encodes into it again. */
  | { kind: 'spare'; memory: ArrayBuffer }
  /** Finish the batches sent, close the store, exit. */
  | { kind: 'close' };

/** What became of one rollout of a batch, in the batch's order. */
export interface EncodedRollout {
  calls: number;
  samples: number;
  corrupt?: { rolloutId: string; seq: number; problem: string };
}

export type FromExportWorker =
  | { kind: 'encoded'; id: number; memory: ArrayBuffer; bytes: number; rows: number; rollouts: EncodedRollout[] }
  | { kind: 'failed'; id: number; message: string; stack?: string };
