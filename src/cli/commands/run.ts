import { Command, Option } from 'commander';
import { loadRunConfig } from '../../config/run.js';
import { harnessNames } from '../../harness/registry.js';
import { abortOnSignals } from '../interrupt.js';
import { toInt } from '../to-int.js';

export function runCommand(): Command {
  return new Command('run')
    .description('run every task of a run.yaml N times in isolated containers and print rewards, pass@k and pass^k')
    .argument('<run.yaml>', 'run config (see envs/claw-basic/run.yaml)')
    .addOption(new Option('--harness <name>', 'override the harness').choices(harnessNames()))
    .option(
      '--upstream <spec>',
      'override model.upstream (and drop model.replicas): sim:oracle | sim:noisy:<p>, optionally @<family> (sim:oracle@qwen3) | an OpenAI-compatible base URL',
    )
    .option('-n, --rollouts-per-task <n>', 'override rollouts_per_task', toInt)
    .option('-c, --concurrency <n>', 'override concurrency', toInt)
    .option('-o, --output <dir>', 'override the output folder')
    .option('--fresh', 'start a new run even if the latest one in the output folder is unfinished')
    .option('--extra-ca <file>', 'PEM bundle passed into image builds that fetch over https')
    .option('--json', 'print the summary as JSON on stdout')
    .addHelpText(
      'after',
      "\nEnvironment: OPENFORGE_ADMIN_TOKEN opens the run's recording proxy to GET /metrics and GET /control/status\nwith that token as Bearer (on 127.0.0.1, at the port the run prints); OPENFORGE_EXTRA_CA as --extra-ca.",
    )
    .action(async (file: string, opts) => {
      const loaded = loadRunConfig(file, {
        harness: opts.harness,
        rollouts_per_task: opts.rolloutsPerTask,
        concurrency: opts.concurrency,
        output: opts.output,
      });
      if (opts.upstream) loaded.config.model = { ...loaded.config.model, upstream: opts.upstream, replicas: undefined };
      // the orchestrator (Docker, the proxy, the store) loads only for a run: `run --help` needs none of it
      const [{ SingleBar, Presets }, { executeRun }, { formatSummary }] = await Promise.all([
        import('cli-progress'),
        import('../../rollout/run.js'),
        import('../../analytics/run-summary.js'),
      ]);
      const controller = abortOnSignals();
      const tty = process.stderr.isTTY && !opts.json;
      const bar = tty
        ? new SingleBar(
            { format: ' {bar} {value}/{total} rollouts · mean reward {mean} · errors {errors} · {eta_formatted} left', hideCursor: true },
            Presets.shades_classic,
          )
        : undefined;
      let rewardSum = 0;
      let rewarded = 0;
      let errors = 0;
      const summary = await executeRun(loaded, {
        fresh: opts.fresh,
        extraCaFile: opts.extraCa ?? process.env.OPENFORGE_EXTRA_CA,
        proxyAdminToken: process.env.OPENFORGE_ADMIN_TOKEN || undefined,
        signal: controller.signal,
        onPlan: (p) => {
          const resumed = p.resumed ? ` (resuming: ${p.skipped} finished rollouts kept)` : '';
          process.stderr.write(`run ${p.runId}: ${p.total} rollouts to go${resumed} · output ${p.outputDir}\n`);
          bar?.start(p.total, 0, { mean: '-', errors: 0 });
        },
        onRolloutDone: ({ taskId, sampleIndex, outcome }) => {
          if (outcome.reward !== null) {
            rewardSum += outcome.reward;
            rewarded++;
          }
          if (outcome.errorType) errors++;
          if (bar) bar.increment({ mean: rewarded ? (rewardSum / rewarded).toFixed(2) : '-', errors });
          else if (!opts.json) {
            const what = outcome.reward !== null ? `reward ${outcome.reward}` : 'no reward';
            process.stderr.write(`  ${taskId}#${sampleIndex}: ${what}${outcome.errorType ? ` [${outcome.errorType}: ${outcome.errorMessage}]` : ''}\n`);
          }
        },
        onLiveView: (view) => {
          process.stderr.write(`${bar ? '\r\x1b[K' : ''}live view ${view.taskId}#${view.sampleIndex}: ${view.url}\n`);
        },
        onLog: (line) => {
          // Over a live bar: clear its line first; the bar redraws on its next update.
          if (!opts.json) process.stderr.write(`${bar ? '\r\x1b[K' : ''}${line}\n`);
        },
      });
      if (bar) {
        bar.stop();
        process.stderr.write('\n');
      }
      if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else process.stdout.write(`${formatSummary(summary)}\n`);
      if (controller.signal.aborted) process.exitCode = 130;
    });
}
