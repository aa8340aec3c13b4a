import { Command } from 'commander';
import { locateRollout } from '../../inspector/locate-rollout.js';
import { abortOnSignals } from '../interrupt.js';

/** `openforge replay`: a determinism check of an environment and its grader. */
export function replayCommand(): Command {
  return new Command('replay')
    .description(
      're-run a rollout, the proxy playing back its recorded answers in the protocol the harness speaks, and report whether every tool call, tool result and the reward came out the same',
    )
    .argument('<rollout>', 'rollout id')
    .option('-d, --dir <run-dir>', "the run's output folder (default: ., ./runs or ./runs/*, whichever holds the rollout)")
    .option('--json', 'print the report as JSON')
    .action(async (rolloutId: string, opts: { dir?: string; json?: boolean }) => {
      const { replayRollout } = await import('../../rollout/replay.js'); // loaded on use: `--help` needs none of it
      const dir = await locateRollout(rolloutId, opts.dir);
      const controller = abortOnSignals();
      const report = await replayRollout(dir, rolloutId, {
        signal: controller.signal,
        extraCaFile: process.env.OPENFORGE_EXTRA_CA,
        onLog: (line) => void (opts.json || process.stderr.write(`${line}\n`)),
      });
      if (opts.json) {
        process.stdout.write(
          `${JSON.stringify({ rollout: rolloutId, replay: report.replay.id, identical: report.identical, differences: report.differences, reward: report.replay.reward }, null, 2)}\n`,
        );
      } else if (report.identical) {
        process.stdout.write(
          `identical: every tool call, tool result and the reward (${report.replay.reward}) came out the same\nreplay rollout ${report.replay.id}\n`,
        );
      } else {
        process.stdout.write(
          `different: the replay diverged from ${rolloutId}\n${report.differences.map((d) => `  - ${d}`).join('\n')}\nreplay rollout ${report.replay.id}\n`,
        );
      }
      process.exitCode = controller.signal.aborted ? 130 : report.identical ? 0 : 1;
    });
}
