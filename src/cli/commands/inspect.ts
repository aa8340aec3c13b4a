import { Command } from 'commander';
import { openRunFolder } from '../../inspector/run-folder.js';
import { startInspector } from '../../inspector/server.js';
import { toPort } from '../to-int.js';
import { RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION } from '../run-dir-argument.js';

/** `openforge inspect`: the web inspector over a finished (or running) run folder. */
export function inspectCommand(): Command {
  return new Command('inspect')
    .description('serve the web inspector for a run folder: runs, rollouts, every model call with its tokens, logs, replay and fork')
    .argument(RUN_DIR_ARGUMENT, RUN_DIR_DESCRIPTION)
    .option('--port <n>', 'port to listen on (default: a free one)', toPort)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .action(async (dir: string, opts: { port?: number; host: string }) => {
      const folder = await openRunFolder(dir);
      const inspector = await startInspector({ folder, host: opts.host, port: opts.port ?? 0, extraCaFile: process.env.OPENFORGE_EXTRA_CA });
      process.stdout.write(`inspector: ${inspector.url}  (${folder.dir}; Ctrl-C to stop)\n`);
      await untilInterrupted();
      await inspector.close();
      await folder.store.close();
    });
}

/** Resolves on the first Ctrl-C / SIGTERM. */
export function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
