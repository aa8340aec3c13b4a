import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CustomHarnessSchema } from '../harness/custom.js';
import { harnessNames } from '../harness/registry.js';
import { kubernetesPlugin } from '../sandbox/kubernetes/plugin.js';
import { backendNames, backendPlugin } from '../sandbox/registry.js';
import { UserError } from '../util/errors.js';
import { formatIssues } from './zod-errors.js';

const TimeoutsSchema = z.strictObject({
  start_sec: z.number().positive().default(60).describe('Container create + start + ready to exec.'),
  agent_sec: z.number().positive().optional().describe("The harness's run; overrides every task's `[agent] timeout_sec` when set."),
  verifier_sec: z.number().positive().optional().describe("The grader's run; overrides every task's `[verifier] timeout_sec` when set."),
  setup_sec: z.number().positive().default(60).describe("Writing the harness's config and the instruction into the sandbox."),
  collect_sec: z.number().positive().default(60).describe('Copying logs and transcripts out.'),
  teardown_sec: z.number().positive().default(30).describe('Removing the sandbox.'),
});

const ResourcesSchema = z.strictObject({
  cpus: z.number().positive().max(64).default(1).describe('CPU cores each rollout container may use.'),
  memory_mb: z.number().int().min(64).default(1024).describe("Each container's memory limit (a harness may raise it to its own floor)."),
  pids: z.number().int().min(16).default(512).describe('Processes each container may run.'),
});

/** More servers of the model at `upstream` (`model.replicas`, a rollout request's `replicas`). */
export const REPLICAS_SCHEMA = z
  .array(z.string().regex(/^https?:\/\/\S+$/, 'expected an http(s) base URL such as http://10.0.0.2:8000/v1'))
  .min(1)
  .optional();

/** Sampling settings forced onto every upstream call (`model.sampling`, a rollout request's `sampling`), named as vLLM names them. */
export const SAMPLING_SCHEMA = z.strictObject({
  temperature: z.number().min(0).max(2).optional().describe('Forced onto every call.'),
  max_tokens: z.number().int().positive().optional().describe('A cap: a harness may ask for fewer tokens, never more.'),
  top_p: z.number().gt(0).max(1).optional().describe('Nucleus sampling: the smallest set of tokens whose probability reaches it.'),
  top_k: z.number().int().min(-1).optional().describe('Only the k likeliest tokens (-1 or 0: all).'),
  min_p: z.number().min(0).max(1).optional().describe("Tokens less likely than this fraction of the likeliest one's probability are left out."),
  stop: z
    .union([z.string().min(1), z.array(z.string().min(1)).max(16)])
    .optional()
    .describe('Strings that end an answer, on top of any the harness sends (vLLM takes a list).'),
  presence_penalty: z.number().min(-2).max(2).optional().describe('Forced onto every call.'),
  frequency_penalty: z.number().min(-2).max(2).optional().describe('Forced onto every call.'),
  repetition_penalty: z.number().gt(0).max(2).optional().describe("vLLM's and SGLang's multiplicative penalty (1: none)."),
  seed: z.number().int().optional().describe('The engine seeds every call with it.'),
  logprobs: z
    .number()
    .int()
    .min(0)
    .max(20)
    .optional()
    .describe("Top logprobs per sampled token to record beside its own (the sampled token's logprob is always recorded)."),
});
export type SamplingSettings = z.infer<typeof SAMPLING_SCHEMA>;

/** Replicas sit beside a server of the same model: `upstream` must be a URL too, never a sim. */
export function replicasBesideUrl(model: { upstream: string; replicas?: string[] | undefined }, ctx: z.RefinementCtx): void {
  if (model.replicas && !/^https?:\/\//.test(model.upstream)) {
    ctx.addIssue({
      code: 'custom',
      path: ['replicas'],
      message: `replicas are more servers of the model at upstream, which is "${model.upstream}": make upstream one of them (a URL) or drop replicas`,
    });
  }
}

/** A name one of the registries knows (harnesses, backends): checked when the file is read, so the error lists the names. */
function registeredName(what: string, names: () => string[]) {
  return z.string().superRefine((name, ctx) => {
    if (!names().includes(name)) ctx.addIssue({ code: 'custom', message: `unknown ${what} "${name}"; use one of: ${names().join(', ')}` });
  });
}

/** What a rollout may bring out of its container when run.yaml sets no `collect_limits`. */
export const DEFAULT_COLLECT_MB = 512;
export const DEFAULT_COLLECT_FILES = 20_000;

// Keys added after the first release are optional rather than defaulted (replicas, warm_pool,
// backend_wait_sec, collect_limits, sandbox): a config that does not set them keeps its hash, so its unfinished runs still resume.
export const RunConfigSchema = z.strictObject({
  tasks: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('A suite folder, a task folder, or a list of them; relative to the run.yaml.'),
  harness: registeredName('harness', harnessNames)
    .default('forge-agent')
    .describe('What runs in each rollout container: a built-in agent, a real harness, or `custom` (docs/harnesses.md).'),
  custom_harness: CustomHarnessSchema.optional().describe('For `harness: custom`: a harness binary of your own (docs/harnesses.md).'),
  harness_env: z
    .record(z.string(), z.string())
    .superRefine((env, ctx) => {
      for (const key of Object.keys(env)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
          ctx.addIssue({ code: 'custom', path: [key], message: 'not an environment variable name (letters, digits and _, not starting with a digit)' });
      }
    })
    .default({})
    .describe(
      'Extra environment for the harness process, over what its adapter sets: the harness\'s own switches, e.g. `CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES: "1"`.',
    ),
  model: z
    .strictObject({
      upstream: z
        .string()
        .min(1)
        .default('sim:oracle')
        .describe(
          "`sim:oracle` | `sim:noisy:<p>` | `sim:replay:<rollout>`, each optionally `@<family>` to speak a real model family's wire (`sim:oracle@qwen3`) | an OpenAI-compatible base URL (…/v1).",
        ),
      replicas: REPLICAS_SCHEMA.describe(
        'More servers of the same model (base URLs …/v1) beside `upstream`: each rollout sticks to one (its prefix cache), and one that keeps failing is left out for a while.',
      ),
      name: z.string().min(1).default('policy').describe('Model name sent upstream (forced onto every call).'),
      kind: z
        .enum(['vllm', 'sglang', 'openai-compatible'])
        .default('vllm')
        .describe('What the upstream is: vLLM and SGLang return token ids; any other OpenAI-compatible server is recorded without them.'),
      token_in: z
        .boolean()
        .optional()
        .describe(
          "Token-in/token-out: the proxy keeps each rollout's exact token history, renders only what the harness appended since its last call, and sends the engine token ids (vLLM `/v1/completions`, SGLang `/generate`), so every sampled token reaches training. Needs `tokenizer`, or a `sim:…@<family>` upstream. Off: the engine renders each chat request itself.",
        ),
      tokenizer: z
        .string()
        .min(1)
        .optional()
        .describe(
          "The model's chat template and tokenizer for `token_in`: a Hugging Face model folder (tokenizer.json, and tokenizer_config.json with a chat_template; relative to the run.yaml) or a family name (`qwen3`, `deepseek_v3`).",
        ),
      transient_context: z
        .enum(['keep', 'render'])
        .optional()
        .describe(
          "Token-in (default `keep`): a call that leaves out the user messages its rollout's last call ended with (a harness's runtime context, sent once and dropped: OpenClaw's). `keep`: they stay in the token history where the model saw them, the call continues it and the rollout stays one sample. `render`: the call is rendered as the harness sent it (the model sees only the current context; a new sample, labelled history_edited).",
        ),
      sampling: SAMPLING_SCHEMA.default({}).describe('Sampling settings forced onto every upstream call.'),
    })
    .superRefine(replicasBesideUrl)
    .default({ upstream: 'sim:oracle', name: 'policy', kind: 'vllm', sampling: {} })
    .describe('The policy the harnesses talk to, through the recording proxy.'),
  judge: z
    .strictObject({
      upstream: z
        .string()
        .min(1)
        .refine((u) => u === 'sim:judge' || /^https?:\/\//.test(u), 'upstream must be `sim:judge` or an OpenAI-compatible base URL (…/v1)')
        .describe('`sim:judge` (a simulated judge that answers deterministically, for tests) | an OpenAI-compatible base URL (…/v1).'),
      model: z.string().min(1).default('judge').describe('Model name sent to the judge upstream (forced onto every judge call).'),
      api_key_env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. JUDGE_API_KEY')
        .optional()
        .describe(
          "The environment variable of the orchestrator's process that holds the judge's API key: sent upstream as a Bearer token by the judge endpoint, never stored and never given to a container.",
        ),
      sampling: z
        .strictObject({
          temperature: z.number().min(0).max(2).optional().describe('Forced onto every judge call.'),
          max_tokens: z.number().int().positive().optional().describe('Forced onto every judge call.'),
        })
        .default({})
        .describe('Sampling settings forced onto every judge call.'),
    })
    .optional()
    .describe(
      "The LLM judge of every judge-graded task of the run: graders reach it through a judge endpoint only the verifier phase is given (OPENFORGE_JUDGE_URL, OPENFORGE_JUDGE_MODEL); its calls are kept in each rollout's judge/calls.jsonl, apart from the policy's (docs/tasks.md).",
    ),
  rollouts_per_task: z.number().int().min(1).max(10_000).default(1).describe('Rollouts of each task (a GRPO group; pass@k uses them).'),
  concurrency: z.number().int().min(1).max(512).default(4).describe('Rollouts running at once.'),
  warm_pool: z
    .number()
    .int()
    .min(0)
    .max(512)
    .optional()
    .describe('How many of the next rollouts get their container started while earlier ones run (0: none); `concurrency` when absent.'),
  backend: registeredName('backend', backendNames)
    .default('docker')
    .describe('Where sandboxes run: the local Docker engine, or a Kubernetes cluster (with its section).'),
  kubernetes: kubernetesPlugin.section!.optional().describe('Cluster settings for `backend: kubernetes` (docs/kubernetes.md).'),
  timeouts: TimeoutsSchema.default({ start_sec: 60, setup_sec: 60, collect_sec: 60, teardown_sec: 30 }).describe("Each phase's deadline, in seconds."),
  network: z
    .enum(['none', 'proxy-only', 'public'])
    .default('proxy-only')
    .describe('What a rollout container may reach: nothing, the recording proxy alone, or the internet too.'),
  resources: ResourcesSchema.default({ cpus: 1, memory_mb: 1024, pids: 512 }).describe("Each rollout container's limits."),
  output: z.string().min(1).default('runs').describe("The runs folder: the SQLite store and each rollout's artifacts go here; relative to the run.yaml."),
  max_turns: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(30)
    .describe('Policy calls a rollout may make; enforced by the harness where it has a flag, else by the proxy.'),
  max_staleness: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe(
      'Async RL (openforge serve): a rollout whose first model call is more than this many weight updates old when it ends is marked stale: kept, counted, left out of samples unless asked for. Unset: none is stale.',
    ),
  retries: z
    .strictObject({
      infrastructure: z.number().int().min(0).max(10).default(2).describe('Retries of a rollout that failed before its agent started (image, start, setup).'),
      backend_wait_sec: z
        .number()
        .int()
        .min(1)
        .max(86_400)
        .optional()
        .describe("How long a rollout's retry waits for an unreachable backend (an engine restart) before the run stops."),
      upstream_error: z
        .number()
        .int()
        .min(0)
        .max(10)
        .optional()
        .describe(
          'Retries of a rollout whose policy calls failed at the upstream (an outage: no reward, no sample), each once the upstream serves again; 2 when absent.',
        ),
      upstream_wait_sec: z
        .number()
        .int()
        .min(1)
        .max(86_400)
        .optional()
        .describe('How long such a retry waits for the upstream to serve again (120 when absent); past it the rollout stays an `upstream_error`.'),
    })
    .default({ infrastructure: 2 })
    .describe('What is retried, and how long a retry waits.'),
  sandbox: z
    .strictObject({
      runtime: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'an OCI runtime name, e.g. runsc')
        .optional()
        .describe(
          "The OCI runtime each rollout container runs under (Docker's `--runtime`; a pod's runtimeClassName): `runsc` (gVisor) puts a user-space kernel between the agent and the host's. The engine's default (runc) when absent.",
        ),
    })
    .optional()
    .describe("How each rollout container is isolated, beyond what every one gets (no capabilities but its own files', limits, no Docker socket)."),
  collect_limits: z
    .strictObject({
      max_mb: z.number().int().min(1).max(1_048_576).default(DEFAULT_COLLECT_MB).describe('MiB of file content.'),
      max_files: z.number().int().min(1).max(10_000_000).default(DEFAULT_COLLECT_FILES).describe('Files and folders.'),
    })
    .optional()
    .describe(
      `The most a rollout brings out of its container (its logs and transcripts): past it the copy stops, the rollout's events name the limit, and a grader's output cut short fails the rollout. ${DEFAULT_COLLECT_MB} MiB and ${DEFAULT_COLLECT_FILES} files when absent.`,
    ),
  pass_threshold: z.number().min(0).max(1).default(1).describe('A rollout passes (for pass@k / pass^k) when its reward is at least this.'),
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
      throw new UserError(
        `${file}: harness: "custom" needs a custom_harness section`,
        'give it name, command (and install_dir for a binary on this machine); see README "Harnesses"',
      );
    }
    if (config.custom_harness.install_dir) {
      const dir = path.resolve(path.dirname(file), config.custom_harness.install_dir);
      if (!existsSync(dir)) throw new UserError(`${file}: custom_harness.install_dir: ${dir} does not exist`);
      config.custom_harness.install_dir = dir;
    }
  }
  const backend = backendPlugin(config.backend);
  if (backend.section) {
    const section = (config as Record<string, unknown>)[backend.name];
    if (section === undefined) throw new UserError(`${file}: backend: "${backend.name}" needs a ${backend.name} section`, backend.sectionHint);
    backend.resolvePaths?.(section, dir);
  }
  if (config.model.tokenizer && /[/\\]|^\./.test(config.model.tokenizer)) config.model.tokenizer = path.resolve(dir, config.model.tokenizer);
  const usesModel = config.harness === 'custom' ? config.custom_harness!.uses_model : config.harness !== 'oracle' && config.harness !== 'nop';
  if (config.network === 'none' && usesModel) {
    throw new UserError(
      `${file}: network: "none" leaves the harness no way to reach the model proxy`,
      'use network: proxy-only (the default), or a harness that needs no model (oracle, nop)',
    );
  }
  return { config, taskPaths, outputDir: path.resolve(dir, config.output), file };
}
