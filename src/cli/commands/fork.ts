import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { locateRollout } from '../../inspector/locate-rollout.js';
import { UserError } from '../../util/errors.js';
import { abortOnSignals } from '../interrupt.js';
import { toInt } from '../to-int.js';

/** `openforge fork`: replay a rollout up to call K, give call K another answer, let a model continue. */
export function forkCommand(): Command {
  return new Command('fork')
    .description(
      'replay a rollout up to call K, answer call K with your edited answer, continue with a model (a sim: policy or a real OpenAI-compatible server); stored as a new rollout linked to the old one',
    )
    .argument('<rollout>', 'rollout id')
    .requiredOption('--at <K>', 'the call whose answer to replace (its number in the inspector)', toInt)
    .requiredOption(
      '--answer <file>',
      'JSON file holding the new answer: a Chat assistant message ({"content": …, "tool_calls": […]}), or in the call\'s own protocol a Responses output item list (Codex) or an Anthropic content block list (Claude Code)',
    )
    .option(
      '--upstream <spec|url>',
      "who answers after call K: sim:oracle | sim:noisy:<p> | the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (default: the run's own upstream; sim:oracle after a replay)",
    )
    .option('--model-name <name>', "the model name sent to that upstream (default: the run's model.name)")
    .option('--model <spec|url>', 'the same as --upstream (older name)')
    .option('-d, --dir <run-dir>', "the run's output folder (default: ., ./runs or ./runs/*, whichever holds the rollout)")
    .action(async (rolloutId: string, opts: { at: number; answer: string; upstream?: string; modelName?: string; model?: string; dir?: string }) => {
      const { forkRollout } = await import('../../rollout/fork.js'); // loaded on use: `--help` needs none of it
      if (!existsSync(opts.answer)) throw new UserError(`answer file ${opts.answer} does not exist`);
      if (opts.upstream && opts.model && opts.upstream !== opts.model)
        throw new UserError(`--upstream ${opts.upstream} and --model ${opts.model} disagree`, 'give one of them (--model is the older name of --upstream)');
      const dir = await locateRollout(rolloutId, opts.dir);
      const controller = abortOnSignals();
      const { fork } = await forkRollout(dir, rolloutId, {
        atSeq: opts.at,
        answer: readFileSync(opts.answer, 'utf8'),
        upstream: opts.upstream ?? opts.model,
        modelName: opts.modelName,
        signal: controller.signal,
        extraCaFile: process.env.OPENFORGE_EXTRA_CA,
        onLog: (line) => void process.stderr.write(`${line}\n`),
      });
      const outcome = fork.errorType ? `${fork.errorType}: ${fork.errorMessage}` : `reward ${fork.reward}`;
      process.stdout.write(`fork ${fork.id} of ${rolloutId} at call ${opts.at}: ${outcome}\n`);
      if (controller.signal.aborted) process.exitCode = 130;
    });
}
