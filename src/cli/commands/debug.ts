import path from 'node:path';
import { Command, Option } from 'commander';
import { resolveRunConfig } from '../../config/run.js';
import { harnessNames } from '../../harness/registry.js';
import { loadTask } from '../../config/task.js';
import { abortOnSignals } from '../interrupt.js';
import { toInt, toPort } from '../to-int.js';

/** `openforge debug`: one rollout of one task, watched live in the inspector, its container kept for a shell. */
export function debugCommand(): Command {
  return new Command('debug')
    .description('run one rollout of a task, serve the live web inspector, and keep its container for `openforge shell` until Ctrl-C')
    .argument('<task-dir>', 'a task folder (Harbor layout: task.toml, instruction.md, tests/, environment/)')
    .addOption(new Option('--harness <name>', 'harness').choices(harnessNames()).default('forge-agent'))
    .option('--model <spec>', 'model upstream: sim:oracle | sim:noisy:<p> | sim:replay:<rollout> | an OpenAI-compatible base URL', 'sim:oracle')
    .option('-o, --output <dir>', 'output folder (store and artifacts)', 'runs/debug')
    .option('--port <n>', 'inspector port (default: a free one)', toPort)
    .option('--host <addr>', 'inspector address', '127.0.0.1')
    .option('--keep <sec>', 'how long the container may stay up after the rollout at most', toInt, 3600)
    .action(async (taskDir: string, opts: { harness: string; model: string; output: string; port?: number; host: string; keep: number }) => {
      // loaded on use: `--help` needs none of it
      const [{ executeRun }, { formatSummary }, { DockerBackend }, { openRunFolder }, { startInspector }] = await Promise.all([
        import('../../rollout/run.js'),
        import('../../analytics/run-summary.js'),
        import('../../sandbox/docker/backend.js'),
        import('../../inspector/run-folder.js'),
        import('../../inspector/server.js'),
      ]);
      const task = loadTask(taskDir);
      const output = path.resolve(opts.output);
      const loaded = resolveRunConfig(
        { tasks: task.dir, harness: opts.harness, model: { upstream: opts.model }, rollouts_per_task: 1, concurrency: 1, output },
        path.join(output, 'debug.yaml'),
      );
      const backend = new DockerBackend();
      await backend.check();
      const folder = await openRunFolder(output, { create: true });
      const inspector = await startInspector({ folder, host: opts.host, port: opts.port ?? 0, extraCaFile: process.env.OPENFORGE_EXTRA_CA });
      process.stdout.write(`inspector: ${inspector.url}\n`);
      const controller = abortOnSignals();
      let runId: string | undefined;
      try {
        const summary = await executeRun(loaded, {
          backend,
          fresh: true,
          keepContainersSec: opts.keep,
          signal: controller.signal,
          extraCaFile: process.env.OPENFORGE_EXTRA_CA,
          onPlan: (p) => {
            runId = p.runId;
            const rolloutId = `${p.runId}.${task.id}.0.1`;
            process.stdout.write(`rollout ${rolloutId}: ${inspector.url}#/rollout/${encodeURIComponent(rolloutId)}\n`);
          },
          onLog: (line) => void process.stderr.write(`${line}\n`),
        });
        process.stdout.write(`${formatSummary(summary)}\n`);
        const [rollout] = await folder.store.currentRollouts(summary.runId);
        if (!controller.signal.aborted) {
          process.stdout.write(
            `container kept: openforge shell ${rollout?.id}\ninspector still serving at ${inspector.url} — Ctrl-C to stop and remove the container\n`,
          );
          await new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
        }
      } finally {
        if (runId) await backend.removeRun(runId).catch(() => undefined);
        await inspector.close();
        await folder.store.close();
      }
    });
}
