import { Command } from 'commander';
import { loadTasks } from '../../config/task.js';
import { abortOnSignals } from '../interrupt.js';
import { toInt } from '../to-int.js';
import { addTasksImportCommand } from './tasks-import.js';

export function tasksCommand(): Command {
  const tasks = new Command('tasks').description('work with task suites (Harbor layout)');
  tasks
    .command('list')
    .argument('<suite>', 'a suite or task folder')
    .action((suite: string) => {
      for (const t of loadTasks(suite)) process.stdout.write(`${t.id}\t${t.config.task?.description ?? ''}\n`);
    });
  tasks
    .command('validate')
    .description('run each task with the reference solution (must score 1) and with an agent that does nothing (must score 0)')
    .argument('<suite>', 'a suite or task folder')
    .option('-c, --concurrency <n>', 'rollouts at once', toInt, 4)
    .option('--json', 'print the results as JSON')
    .action(async (suite: string, opts: { concurrency: number; json?: boolean }) => {
      const controller = abortOnSignals();
      const { validateTasks } = await import('../../rollout/validate.js'); // the orchestrator: not for `tasks list`
      const results = await validateTasks(suite, { concurrency: opts.concurrency, signal: controller.signal });
      if (opts.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
      else {
        for (const r of results)
          process.stdout.write(
            `${r.ok ? 'ok  ' : 'FAIL'}  ${r.taskId.padEnd(32)} oracle ${r.oracleReward ?? '-'}  nop ${r.nopReward ?? '-'}${r.problem ? `  ${r.problem}` : ''}\n`,
          );
        const bad = results.filter((r) => !r.ok).length;
        process.stdout.write(`${results.length - bad} of ${results.length} tasks valid\n`);
      }
      if (results.some((r) => !r.ok)) process.exitCode = 1;
    });
  addTasksImportCommand(tasks);
  return tasks;
}
