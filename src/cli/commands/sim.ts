import { Command, InvalidArgumentError } from 'commander';
import { loadTasks } from '../../config/task.js';
import { familyNames } from '../../families/registry.js';
import { formatSimSpec, parseSimSpec } from '../../sim/policies/sim-spec.js';
import { startSimServer } from '../../sim/server.js';
import { UserError } from '../../util/errors.js';
import { toPort } from '../to-int.js';

interface SimOptions {
  policy: string;
  tasks?: string;
  host: string;
  port: number;
  model?: string;
  servedModelName?: string;
  tokenDelayMs: number;
  prefillTokensPerS?: number;
  decodeTokensPerS?: number;
}

/** `openforge sim`: serves the simulated model until SIGINT or SIGTERM. */
export function simCommand(): Command {
  return new Command('sim')
    .description('serve the simulated model (sim): an OpenAI/vLLM-compatible endpoint driven by a scripted policy, no real LLM')
    .option('--policy <policy>', 'oracle | noisy:<p> | replay:<rollout-id> (the "sim:" prefix is optional)', 'oracle')
    .option('--tasks <dir>', 'task folder or suite the oracle solves (needed by oracle and noisy)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', toPort, 8000)
    .option(
      '--model <family>',
      `the real model family whose wire it speaks: ${familyNames().join(' | ')} (default: the built-in ChatML model); the same as @<family> on --policy`,
    )
    .option('--served-model-name <name>', 'served model id (default sim-<policy>)')
    .option('--token-delay-ms <ms>', 'pause before each streamed chunk', integerOption('--token-delay-ms'), 0)
    .option(
      '--prefill-tokens-per-s <n>',
      "prompt tokens prefilled a second: each answer's first token waits prompt tokens / n, as on a GPU engine (default: no prefill time)",
      rateOption('--prefill-tokens-per-s'),
    )
    .option(
      '--decode-tokens-per-s <n>',
      'tokens decoded a second across all the answers being decoded: a decode step lasts at least those answers / n, as with continuous batching (default: no limit)',
      rateOption('--decode-tokens-per-s'),
    )
    .action(async (options: SimOptions) => {
      await serve(options);
    });
}

async function serve(options: SimOptions): Promise<void> {
  const policy = options.policy.startsWith('sim:') ? options.policy : `sim:${options.policy}`;
  const spec = parseSimSpec(options.model ? `${policy}@${options.model}` : policy);
  if (spec.kind === 'replay') {
    throw new UserError(
      `${formatSimSpec(spec)} needs the answers recorded for rollout ${spec.rolloutId}, which live in a run store that \`openforge sim\` cannot open yet`,
      'use --policy oracle or noisy:<p> here; the replay policy itself runs in-process (startSimServer with replayAnswers)',
    );
  }
  if (!options.tasks) throw new UserError(`--tasks is required for ${formatSimSpec(spec)}`, 'point it at a task folder or a suite of tasks');
  const tasks = loadTasks(options.tasks);
  const server = await startSimServer({
    policy: spec,
    tasks,
    host: options.host,
    port: options.port,
    modelName: options.servedModelName,
    tokenDelayMs: options.tokenDelayMs,
    prefillTokensPerSecond: options.prefillTokensPerS,
    decodeTokensPerSecond: options.decodeTokensPerS,
  });
  process.stdout.write(
    `openforge sim serving ${server.url} (simulated model: no real LLM)\n` +
      `  policy ${formatSimSpec(spec)}, model ${server.model}, ${spec.family ? `the ${spec.family} family's template, tokenizer and parsers` : 'the built-in ChatML model'}, ${tasks.length} task(s) from ${options.tasks}\n` +
      '  Ctrl-C to stop\n',
  );
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  process.stdout.write('openforge sim stopped\n');
}

function integerOption(name: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} takes a whole number ≥ 0, got "${value}"`);
    return Number(value);
  };
}

function rateOption(name: string): (value: string) => number {
  return (value) => {
    const rate = Number(value);
    if (value.trim() === '' || !(rate > 0) || !Number.isFinite(rate))
      throw new InvalidArgumentError(`${name} takes a number of tokens a second above 0, got "${value}"`);
    return rate;
  };
}
