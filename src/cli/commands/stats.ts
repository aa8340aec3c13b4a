import { Command } from 'commander';
import { formatTrajectoryStats } from '../../trajectory/format-stats.js';
import { trajectoryStats } from '../../trajectory/stats.js';
import { RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION } from '../run-dir-argument.js';

/** `openforge stats`: how a run's calls turn into training samples, and its rewards. */
export function statsCommand(): Command {
  return new Command('stats')
    .description('merge rate, break causes, excluded calls, tokens per sample, rewards and pass@k / pass^k of a run')
    .argument(RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION)
    .option('--run <id>', 'run id (default: the latest run in the folder)')
    .option('--json', 'print the statistics as JSON')
    .action(async (dir: string, opts: { run?: string; json?: boolean }) => {
      // Reading a live run is harmless here: the numbers are a snapshot.
      const stats = await trajectoryStats(dir, { runId: opts.run, allowRunning: true });
      process.stdout.write(opts.json ? `${JSON.stringify(stats, null, 2)}\n` : `${formatTrajectoryStats(stats)}\n`);
    });
}
