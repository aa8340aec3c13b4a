import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { KubernetesSectionSchema } from '../sandbox/kubernetes/config.js';
import { UserError } from '../util/errors.js';
import { formatIssues } from './zod-errors.js';

export const HARNESS_NAMES = ['forge-agent', 'forge-gui-agent', 'oracle', 'nop', 'qwen-code', 'openclaw', 'claude-code', 'codex', 'opencode', 'custom'] as const;

/**
 * `harness: custom`: a user-supplied harness binary (ZeroClaw, an in-house agent, …). Placeholders in
 * `command` and `env`: {base_url} (the proxy, …/v1), {api_key} (the rollout's secret), {model},
 * {instruction_file}, {max_turns}.
 */
export const CustomHarnessSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
  /** A host folder (relative to the run.yaml) copied to /opt/harness/<name> in every rollout container. */
  install_dir: z.string().min(1).optional(),
  command: z.array(z.string()).min(1),
  env: z.record(z.string(), z.string()).default({}),
  /** Sandbox paths collected into the rollout's artifacts. */
  transcripts: z.array(z.string().startsWith('/')).default([]),
  uses_model: z.boolean().default(true),
  min_memory_mb: z.number().int().min(64).optional(),
});
export type CustomHarnessConfig = z.infer<typeof CustomHarnessSchema>;

const TimeoutsSchema = z.strictObject({
  /** Container create + start + exec-ready. */
  start_sec: z.number().positive().default(60),
  /** Overrides every task's [agent] timeout_sec when set. */
  agent_sec: z.number().positive().optional(),
  /** Overrides every task's [verifier] timeout_sec when set. */
  verifier_sec: z.number().positive().optional(),
  setup_sec: z.number().positive().default(60),
  collect_sec: z.number().positive().default(60),
  teardown_sec: z.number().positive().default(30),
});

const ResourcesSchema = z.strictObject({
  cpus: z.number().positive().max(64).default(1),
  memory_mb: z.number().int().min(64).default(1024),
  pids: z.number().int().min(16).default(512),
});

/** More servers of the model at `upstream` (`model.replicas`, a rollout request's `replicas`). */
export const REPLICAS_SCHEMA = z
  .array(z.string().regex(/^https?:\/\/\S+$/, 'expected an http(s) base URL such as http://10.0.0.2:8000/v1'))
  .min(1)
  .optional();

/** Replicas sit beside a server of the same model: `upstream` must be a URL too, never a sim. */
export function replicasBesideUrl(model: { upstream: string; replicas?: string[] | undefined }, ctx: z.RefinementCtx): void {
  if (model.replicas && !/^https?:\/\//.test(model.upstream)) {
    ctx.addIssue({ code: 'custom', path: ['replicas'], message: `replicas are more servers of the model at upstream, which is "${model.upstream}": make upstream one of them (a URL) or drop replicas` });
  }
}

export const RunConfigSchema = z.strictObject({
  /** A suite folder, a task folder, or a list of them; relative to the run.yaml. */
  tasks: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  harness: z.enum(HARNESS_NAMES).default('forge-agent'),
  custom_harness: CustomHarnessSchema.optional(),
  /**
   * Extra environment for the harness process, over what its adapter sets: the harness's own feature
   * switches, e.g. `CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES: "1"`.
   */
  harness_env: z
    .record(z.string(), z.string())
    .superRefine((env, ctx) => {
      for (const key of Object.keys(env)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'not an environment variable name (letters, digits and _, not starting with a digit)' });
      }
    })
    .default({}),
  model: z
    .strictObject({
      /** `sim:oracle` | `sim:noisy:<p>` | `sim:replay:<rollout>` | an OpenAI-compatible base URL (…/v1). */
      upstream: z.string().min(1).default('sim:oracle'),
      /**
       * More servers of the same model (base URLs …/v1), served alongside `upstream`: each rollout sticks to one
       * (its prefix cache), and one that keeps failing is left out for a while. Optional rather than defaulted,
       * so configs written before it keep their hash (and resume).
       */
      replicas: REPLICAS_SCHEMA,
      /** Model name sent upstream (forced onto every call). */
      name: z.string().min(1).default('policy'),
      kind: z.enum(['vllm', 'sglang', 'openai-compatible']).default('vllm'),
      sampling: z
        .strictObject({
          temperature: z.number().min(0).max(2).optional(),
          max_tokens: z.number().int().positive().optional(),
        })
        .default({}),
    })
    .superRefine(replicasBesideUrl)
    .default({ upstream: 'sim:oracle', name: 'policy', kind: 'vllm', sampling: {} }),
  rollouts_per_task: z.number().int().min(1).max(10_000).default(1),
  concurrency: z.number().int().min(1).max(512).default(4),
  /**
   * How many of the next rollouts get their container started while earlier ones run (0: none); `concurrency`
   * when absent. Optional rather than defaulted, so configs written before it keep their hash (and resume).
   */
  warm_pool: z.number().int().min(0).max(512).optional(),
  backend: z.enum(['docker', 'kubernetes']).default('docker'),
  /** Cluster settings for `backend: kubernetes` (see docs/kubernetes.md). */
  kubernetes: KubernetesSectionSchema.optional(),
  timeouts: TimeoutsSchema.default({ start_sec: 60, setup_sec: 60, collect_sec: 60, teardown_sec: 30 }),
  network: z.enum(['none', 'proxy-only', 'public']).default('proxy-only'),
  resources: ResourcesSchema.default({ cpus: 1, memory_mb: 1024, pids: 512 }),
  /** The runs folder: the SQLite store and each rollout's artifacts go here; relative to the run.yaml. */
  output: z.string().min(1).default('runs'),
  max_turns: z.number().int().min(1).max(1000).default(30),
  retries: z
    .strictObject({
      infrastructure: z.number().int().min(0).max(10).default(2),
      /** How long a rollout's retry waits for an unreachable backend (an engine restart) before the run stops. Optional, so older configs keep their hash. */
      backend_wait_sec: z.number().int().min(1).max(86_400).optional(),
    })
    .default({ infrastructure: 2 }),
  /** A rollout passes (for pass@k / pass^k) when its reward is at least this. */
  pass_threshold: z.number().min(0).max(1).default(1),
});

export type RunConfig = z.infer<typeof RunConfigSchema>;

export interface LoadedRunConfig {
  config: RunConfig;
  /** Absolute task paths. */
  taskPaths: string[];
  /** Absolute output folder. */
  outputDir: string;
  file: string;
}

/** Reads and validates a run.yaml; every error names the file, the key and what is allowed. */
export function loadRunConfig(file: string, overrides: Partial<Record<keyof RunConfig, unknown>> = {}): LoadedRunConfig {
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new UserError(`run config ${abs} does not exist`, 'pass the path of a run.yaml, e.g. envs/claw-basic/run.yaml');
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(abs, 'utf8'));
  } catch (err) {
    throw new UserError(`${abs}: invalid YAML: ${(err as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UserError(`${abs}: expected a mapping of keys (tasks, harness, model, …), got ${raw === null ? 'nothing' : typeof raw}`);
  }
  const merged = { ...(raw as Record<string, unknown>), ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  return resolveRunConfig(merged, abs);
}

export function resolveRunConfig(raw: unknown, file: string): LoadedRunConfig {
  const parsed = RunConfigSchema.safeParse(raw);
  if (!parsed.success) throw new UserError(formatIssues(file, parsed.error));
  const config = parsed.data;
  const dir = path.dirname(file);
  const taskPaths = (Array.isArray(config.tasks) ? config.tasks : [config.tasks]).map((t) => path.resolve(dir, t));
  if (config.harness === 'custom') {
    if (!config.custom_harness) {
      throw new UserError(`${file}: harness: "custom" needs a custom_harness section`, 'give it name, command (and install_dir for a binary on this machine); see README "Harnesses"');
    }
    if (config.custom_harness.install_dir) {
      const dir = path.resolve(path.dirname(file), config.custom_harness.install_dir);
      if (!existsSync(dir)) throw new UserError(`${file}: custom_harness.install_dir: ${dir} does not exist`);
      config.custom_harness.install_dir = dir;
    }
  }
  if (config.backend === 'kubernetes') {
    if (!config.kubernetes) {
      throw new UserError(`${file}: backend: "kubernetes" needs a kubernetes section`, 'give it at least images.registry and proxy.address; see docs/kubernetes.md');
    }
    if (config.kubernetes.kubeconfig) config.kubernetes.kubeconfig = path.resolve(dir, config.kubernetes.kubeconfig);
  }
  const usesModel = config.harness === 'custom' ? config.custom_harness!.uses_model : config.harness !== 'oracle' && config.harness !== 'nop';
  if (config.network === 'none' && usesModel) {
    throw new UserError(
      `${file}: network: "none" leaves the harness no way to reach the model proxy`,
      'use network: proxy-only (the default), or a harness that needs no model (oracle, nop)',
    );
  }
  return { config, taskPaths, outputDir: path.resolve(dir, config.output), file };
}
