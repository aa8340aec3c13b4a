import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { StandaloneProxy } from '../../standalone-proxy/start.js';
import type { EjectionPolicy, TransientPolicy, UpstreamKind } from '../../proxy/types.js';
import { DEFAULT_EJECTION } from '../../proxy/upstream/replica-health.js';
import { HELPER_THREADS_NICE, lowerHelperThreads } from '../../util/helper-threads.js';
import { toInt, toPort } from '../to-int.js';

interface ProxyCliOptions {
  upstream: string[];
  kind: UpstreamKind;
  port: number;
  host: string;
  db: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  policyModel?: string[];
  tasks?: string;
  open?: boolean;
  helperNice: number;
  ejectAfter?: number;
  ejectFor?: number;
  tokenIn?: boolean;
  tokenizer?: string;
  transientContext: TransientPolicy;
}

/** `openforge proxy`: the recording proxy on its own, in front of the user's inference server. */
export function proxyCommand(): Command {
  return new Command('proxy')
    .description('run the recording proxy in front of your own vLLM / SGLang / OpenAI-compatible server (or the sim), recording every call with token ids')
    .requiredOption('--upstream <url|sim:spec>', 'upstream base URL with /v1, or sim:oracle | sim:noisy:<p>; repeat for replicas (sticky per rollout)', collect)
    .addOption(new Option('--kind <kind>', 'what the URL upstreams are').choices(['vllm', 'sglang', 'openai-compatible']).default('vllm'))
    .option('--port <port>', 'port to listen on (0 picks a free one)', toPort, 8080)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .requiredOption('--db <file>', 'SQLite store the calls are recorded into (created if missing)')
    .option('--model <name>', 'model name forced onto every upstream request')
    .option('--temperature <t>', 'temperature forced onto every upstream request', finiteNumber('--temperature'))
    .option('--max-tokens <n>', 'cap on max_tokens of every upstream request', toInt)
    .option('--policy-model <name>', 'model name that is a policy turn; calls for other models are labelled helper (repeatable)', collect)
    .option('--tasks <dir>', 'task folder or suite the sim upstreams solve')
    .option(
      '--eject-after <failures>',
      'with replicas: failed attempts in a row (connection errors, timeouts, 5xx) that take a replica out of routing for a while; 0 never does (default 3)',
      failureCount,
    )
    .option(
      '--eject-for <seconds>',
      'with replicas: how long the first time out of routing lasts; each next one, without an answer between, twice as long (default 5, at most 120 or this)',
      positiveSeconds('--eject-for'),
    )
    .option(
      '--token-in',
      "token-in/token-out: keep each rollout's exact token history and send the engine token ids (vLLM /v1/completions, SGLang /generate); needs --tokenizer, or a sim:…@<family> upstream",
    )
    .option(
      '--tokenizer <dir|family>',
      "the model's chat template and tokenizer for --token-in: a Hugging Face model folder, or a family name (qwen3, deepseek_v3)",
    )
    .addOption(
      new Option(
        '--transient-context <policy>',
        "with --token-in, a call that leaves out the user messages the rollout's last call ended with (OpenClaw's runtime context): keep them in the token history (one sample), or render the call as sent",
      )
        .choices(['keep', 'render'])
        .default('keep'),
    )
    .option('--open', 'accept ANY API key or path token as a session, used as its rollout id (quick data collection, no isolation)')
    .option(
      '--helper-nice <0-19>',
      "niceness of the process's helper threads (V8's GC and compiler, libuv's file and SQLite work) so they yield to the thread serving calls; 0 leaves them alone",
      niceness,
      HELPER_THREADS_NICE,
    )
    .addHelpText(
      'after',
      '\nEnvironment: OPENFORGE_ADMIN_TOKEN fixes the admin token (otherwise a random one is printed);\n' +
        'OPENFORGE_UPSTREAM_API_KEY is sent as Bearer to URL upstreams and never recorded.',
    )
    .action(async (options: ProxyCliOptions) => {
      await serve(options);
    });
}

async function serve(options: ProxyCliOptions): Promise<void> {
  const { startStandaloneProxy } = await import('../../standalone-proxy/start.js'); // loaded on use: `--help` needs none of it
  const running = await startStandaloneProxy({
    upstreams: options.upstream,
    kind: options.kind,
    upstreamApiKey: process.env.OPENFORGE_UPSTREAM_API_KEY || undefined,
    dbFile: path.resolve(options.db),
    host: options.host,
    port: options.port,
    sampling: { model: options.model, temperature: options.temperature, maxTokens: options.maxTokens },
    policyModels: options.policyModel,
    tasksDir: options.tasks,
    tokenIn: options.tokenIn === true,
    tokenizer: options.tokenizer,
    transient: options.transientContext,
    open: options.open === true,
    adminToken: process.env.OPENFORGE_ADMIN_TOKEN || undefined,
    ejection: ejectionPolicy(options),
  });
  // after the store is open: libuv starts its threads on first use
  lowerHelperThreads(options.helperNice);
  process.stdout.write(banner(running, options));
  await untilSignal(() => process.stderr.write('\nopenforge proxy: stopping — finishing in-flight calls and their records (Ctrl-C again to exit now)\n'));
  const recorded = await running.close();
  const db = path.resolve(options.db);
  process.stdout.write(
    recorded
      ? `openforge proxy stopped: run ${running.runId} recorded ${recorded.calls} calls in ${recorded.rollouts} rollouts (${recorded.graded} graded) into ${db}\n` +
          `  training data: openforge export ${db} --format verl${recorded.graded < recorded.rollouts ? ' (--unrewarded keeps the ungraded)' : ''}\n` +
          recorded.earlierRuns
            .map(
              (earlier) =>
                `  ${earlier.rollouts} rollouts of the earlier run ${earlier.runId} got more calls here and stay in it: openforge export ${db} --format verl --run ${earlier.runId}\n`,
            )
            .join('')
      : 'openforge proxy stopped\n',
  );
}

function banner(running: StandaloneProxy, options: ProxyCliOptions): string {
  const { url } = running.proxy;
  const lines = [`openforge proxy listening on ${url}`];
  for (const upstream of running.upstreams) {
    lines.push(
      upstream.simulated ? `  upstream  ${upstream.spec} → ${upstream.url} (simulated model: no real LLM)` : `  upstream  ${upstream.url} (${options.kind})`,
    );
  }
  lines.push(`  records   ${path.resolve(options.db)} (run id ${running.runId})`);
  if (options.policyModel) lines.push(`  policy models ${options.policyModel.join(', ')}; calls for any other model are labelled helper`);
  lines.push(
    `  admin token ${running.adminToken}`,
    '    control (Authorization: Bearer <admin token>): POST /control/sessions {"rollout_id"?, "task_id"?},',
    '    POST /control/rollouts/<rollout id>/reward {"reward", "details"?} (from your grader),',
    '    POST /control/pause {"retry_after_sec"?} | /control/resume | /control/drain {"timeout_sec"?}, GET /control/status,',
    '    GET /metrics (Prometheus: the admin token as its bearer_token)',
    `  new session: curl -s -X POST -H "authorization: Bearer ${running.adminToken}" ${url}/control/sessions`,
    `    → base URL ${url}/s/<secret>/v1 (or ${url}/v1 with the secret as API key)`,
    `  training data: openforge export ${path.resolve(options.db)} --format verl (--unrewarded keeps ungraded rollouts)`,
  );
  if (options.open) {
    lines.push(
      '',
      '  !!! OPEN MODE: ANY API key, Bearer token or /s/<token>/v1 path is accepted, and the token itself',
      '  !!! becomes the rollout id written into the records. Nothing separates clients that share a token.',
      '  !!! Never point a client holding a real provider API key at this proxy.',
      '',
    );
  }
  lines.push('  Ctrl-C to stop', '');
  return lines.join('\n');
}

/** Resolves on the first SIGINT or SIGTERM; a second one exits at once. */
function untilSignal(onFirst: () => void): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    const handler = () => {
      received++;
      if (received > 1) process.exit(130);
      onFirst();
      resolve();
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

function ejectionPolicy({ ejectAfter, ejectFor }: ProxyCliOptions): Partial<EjectionPolicy> {
  const policy: Partial<EjectionPolicy> = {};
  if (ejectAfter !== undefined) policy.failuresToEject = ejectAfter === 0 ? Infinity : ejectAfter;
  if (ejectFor !== undefined) {
    policy.baseEjectionMs = ejectFor * 1000;
    policy.maxEjectionMs = Math.max(DEFAULT_EJECTION.maxEjectionMs, policy.baseEjectionMs);
  }
  return policy;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function niceness(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 19)
    throw new InvalidArgumentError(`--helper-nice takes a whole number from 0 (unchanged) to 19 (lowest priority), got "${value}"`);
  return Number(value);
}

function failureCount(value: string): number {
  if (!/^\d+$/.test(value))
    throw new InvalidArgumentError(`--eject-after takes a whole number of failures (0: never take a replica out of routing), got "${value}"`);
  return Number(value);
}

function positiveSeconds(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} takes a number of seconds above 0, got "${value}"`);
    return n;
  };
}

function finiteNumber(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`${name} takes a number, got "${value}"`);
    return n;
  };
}
