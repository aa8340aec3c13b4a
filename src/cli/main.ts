import { Command } from 'commander';
import { UserError } from '../util/errors.js';
import { exportCommand } from './commands/export.js';
import { imagesCommand } from './commands/images.js';
import { debugCommand } from './commands/debug.js';
import { forkCommand } from './commands/fork.js';
import { inspectCommand } from './commands/inspect.js';
import { replayCommand } from './commands/replay.js';
import { shellCommand } from './commands/shell.js';
import { k8sCommand } from './commands/k8s.js';
import { promoteCommand } from './commands/promote.js';
import { proxyCommand } from './commands/proxy.js';
import { reapCommand } from './commands/reap.js';
import { runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { simCommand } from './commands/sim.js';
import { statsCommand } from './commands/stats.js';
import { tasksCommand } from './commands/tasks.js';

const program = new Command('openforge')
  .description('Run agent rollouts in real harnesses, in containers, through a recording proxy')
  .version('0.1.0')
  .showHelpAfterError();

program.addCommand(runCommand());
program.addCommand(imagesCommand());
program.addCommand(tasksCommand());
program.addCommand(simCommand());
program.addCommand(reapCommand());
program.addCommand(proxyCommand());
program.addCommand(serveCommand());
program.addCommand(exportCommand());
program.addCommand(statsCommand());
program.addCommand(inspectCommand());
program.addCommand(debugCommand());
program.addCommand(shellCommand());
program.addCommand(replayCommand());
program.addCommand(forkCommand());
program.addCommand(k8sCommand());
program.addCommand(promoteCommand());

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof UserError) {
    process.stderr.write(`openforge: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`openforge: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
