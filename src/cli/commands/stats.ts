import { Command } from 'commander';
import { summarizeBehaviour } from '../../analytics/behaviour/behaviour-summary.js';
import { formatBehaviour } from '../../analytics/behaviour/format-behaviour.js';
import { runBehaviour } from '../../analytics/behaviour/run-behaviour.js';
import { formatTrajectoryStats } from '../../trajectory/format-stats.js';
import { trajectoryStats } from '../../trajectory/stats.js';
import { RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION } from '../run-dir-argument.js';

/** `openforge stats`: how a run's calls turn into training samples, and its rewards; with --behaviour, what its rollouts did. */
export function statsCommand(): Command {
  return new Command('stats')
    .description('merge rate, break causes, excluded calls, tokens per sample, rewards and pass@k / pass^k of a run')
    .argument(RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION)
    .option('--run <id>', 'run id (default: the latest run in the folder)')
    .option(
      '--behaviour',
      'behaviour metrics instead, per task, harness and overall: self-verification, tool coverage, plan completion, error recovery, tool errors, repeated calls, turns, tokens, time per turn (docs/behaviour.md)',
    )
    .option('--json', 'print the statistics as JSON')
    .action(async (dir: string, opts: { run?: string; json?: boolean; behaviour?: boolean }) => {
      // Reading a live run is harmless here: the numbers are a snapshot.
      if (opts.behaviour) {
        const run = await runBehaviour(dir, { runId: opts.run });
        const summary = summarizeBehaviour(run);
        process.stdout.write(opts.json ? `${JSON.stringify({ ...summary, rollouts: run.rollouts }, null, 2)}\n` : `${formatBehaviour(summary)}\n`);
        return;
      }
      const stats = await trajectoryStats(dir, { runId: opts.run, allowRunning: true });
      process.stdout.write(opts.json ? `${JSON.stringify(stats, null, 2)}\n` : `${formatTrajectoryStats(stats)}\n`);
    });
}
