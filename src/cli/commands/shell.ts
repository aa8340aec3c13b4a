import { Command } from 'commander';
import { DockerBackend } from '../../sandbox/docker/backend.js';
import { attachShell, keptContainer } from '../../sandbox/docker/shell.js';

const LOGIN_SHELL = 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi';

/** `openforge shell`: an interactive shell inside the container of a rollout kept by `openforge debug`. */
export function shellCommand(): Command {
  return new Command('shell')
    .description('open an interactive shell inside the container of a rollout kept by `openforge debug`')
    .argument('<rollout>', 'rollout id (printed by openforge debug, shown in the inspector)')
    .option('-c, --command <cmd>', 'run this shell command instead of an interactive shell')
    .action(async (rolloutId: string, opts: { command?: string }) => {
      const backend = new DockerBackend();
      await backend.check();
      const container = await keptContainer(backend.docker, rolloutId);
      const cmd = opts.command ? ['sh', '-c', opts.command] : ['sh', '-c', LOGIN_SHELL];
      process.exitCode = await attachShell(backend.docker, container, cmd, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
    });
}
