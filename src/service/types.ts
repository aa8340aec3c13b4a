import { z } from 'zod';
import { REPLICAS_SCHEMA, replicasBesideUrl, RunConfigSchema, SAMPLING_SCHEMA } from '../config/run.js';

/** POST /v1/rollouts */
export const RolloutRequestSchema = z
  .strictObject({
    /** A task folder or a suite folder on the service's machine. */
    tasks: z.string().min(1),
    /** Restrict a suite to these task ids. */
    task_ids: z.array(z.string().min(1)).min(1).optional(),
    harness: RunConfigSchema.shape.harness,
    /** The trainer's inference server (OpenAI-compatible base URL …/v1), or a sim: spec. */
    upstream: z.string().min(1),
    /** More servers of the same model (base URLs …/v1); each rollout sticks to one of them or `upstream`. */
    replicas: REPLICAS_SCHEMA,
    kind: z.enum(['vllm', 'sglang', 'openai-compatible']).default('vllm'),
    model: z.string().min(1).default('policy'),
    sampling: SAMPLING_SCHEMA.default({}),
    /** Rollouts per task (a GRPO group). */
    n: z.number().int().min(1).max(1024).default(1),
    /** The policy's weight version, carried into every sample. */
    weight_version: z.union([z.string(), z.number()]).optional(),
    max_turns: z.number().int().min(1).max(1000).optional(),
    /** A rollout whose first call is more than this many weight updates old when it ends is stale. */
    max_staleness: z.number().int().min(0).max(1_000_000).optional(),
  })
  .superRefine(replicasBesideUrl);
export type RolloutRequest = z.infer<typeof RolloutRequestSchema>;

export type RolloutState = 'queued' | 'running' | 'finished' | 'error' | 'cancelled';

/** GET /v1/rollouts/:id */
export interface RolloutView {
  id: string;
  task_id: string;
  /** The GRPO group: all rollouts of one task in one request share it. */
  group: string;
  status: RolloutState;
  reward: number | null;
  error_type: string | null;
  error_message: string | null;
  attempts: number;
  /** Times the service was killed while it ran, and its restart ran it again (a new attempt). */
  restarts: number;
  weight_version: string | number | null;
  /** Weight updates between its first policy call and its end; null when not measured (no call, or still live). */
  staleness: number | null;
  /** Staleness above its `max_staleness`: kept, its samples left out unless asked for (`include_stale`). */
  stale: boolean;
  /** Training samples, once finished. */
  samples?: unknown[];
}

/** GET /v1/groups/:uid */
export interface GroupView {
  group: string;
  /** Every rollout of the group has ended (finished, error or cancelled). */
  ended: boolean;
  rollouts: Omit<RolloutView, 'samples'>[];
  /** Once ended: every graded rollout got the same reward (no signal for GRPO); null before. */
  uniform: boolean | null;
}
