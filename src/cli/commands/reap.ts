import { Command } from 'commander';
import { loadRunConfig } from '../../config/run.js';
import { createBackend } from '../../sandbox/registry.js';
import { DockerBackend } from '../../sandbox/docker/backend.js';

export function reapCommand(): Command {
  return new Command('reap')
    .description('remove containers and networks left by openforge processes that are no longer running')
    .option('--run <id>', 'remove everything of this run instead, alive or not')
    .option('--config <run.yaml>', 'use the backend this run config names (e.g. a cluster namespace with backend: kubernetes)')
    .action(async (opts: { run?: string; config?: string }) => {
      const backend = opts.config ? await createBackend(loadRunConfig(opts.config).config) : new DockerBackend();
      await backend.check();
      const report = opts.run ? await backend.removeRun(opts.run) : await backend.reap();
      const [sandboxes, networks] = backend.name === 'kubernetes' ? ['pods', 'network policies'] : ['containers', 'networks'];
      process.stdout.write(`removed ${report.containers} ${sandboxes} and ${report.networks} ${networks}\n`);
    });
}
