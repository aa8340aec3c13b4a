import { Command } from 'commander';
import { loadTasks } from '../../config/task.js';
import { UserError } from '../../util/errors.js';
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
    .description(
      "run each task with the reference solution (must score 1) and with an agent that does nothing (must score 0); a benchmark's task with its own pass threshold (Claw-Eval's 0.75) by that threshold",
    )
    .argument('<suite>', 'a suite or task folder')
    .option('-c, --concurrency <n>', 'rollouts at once', toInt, 4)
    .option('--judge <upstream>', 'the judge of judge-graded tasks: sim:judge or an OpenAI-compatible base URL (run.yaml judge.upstream)')
    .option('--judge-model <name>', 'the model sent to the judge upstream (run.yaml judge.model)')
    .option('--judge-api-key-env <var>', "the environment variable holding the judge's API key (run.yaml judge.api_key_env)")
    .option('--json', 'print the results as JSON')
    .action(async (suite: string, opts: { concurrency: number; json?: boolean; judge?: string; judgeModel?: string; judgeApiKeyEnv?: string }) => {
      if (!opts.judge && (opts.judgeModel || opts.judgeApiKeyEnv))
        throw new UserError('--judge-model and --judge-api-key-env need --judge', 'add --judge <upstream>');
      const controller = abortOnSignals();
      const { validateTasks } = await import('../../rollout/validate.js'); // the orchestrator: not for `tasks list`
      const judge = opts.judge
        ? { upstream: opts.judge, ...(opts.judgeModel ? { model: opts.judgeModel } : {}), ...(opts.judgeApiKeyEnv ? { api_key_env: opts.judgeApiKeyEnv } : {}) }
        : undefined;
      const results = await validateTasks(suite, { concurrency: opts.concurrency, signal: controller.signal, ...(judge ? { judge } : {}) });
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
  tasks
    .command('flaky')
    .description(
      'run each task n times with the reference solution (oracle) and n times with an agent that does nothing (nop), and flag the tasks whose reward varies under the same answers: a non-deterministic grader or environment',
    )
    .argument('<suite>', 'a suite or task folder')
    .option('-n, --runs <n>', 'rollouts of each task per harness', toInt, 5)
    .option('-c, --concurrency <n>', 'rollouts at once', toInt, 4)
    .option('--json', 'print the verdicts as JSON')
    .action(async (suite: string, opts: { runs: number; concurrency: number; json?: boolean }) => {
      if (opts.runs < 2) throw new UserError(`-n ${opts.runs} runs each task once per harness: nothing can vary`, 'pass -n 2 or more (5 by default)');
      const controller = abortOnSignals();
      const { findFlakyTasks } = await import('../../rollout/flaky.js'); // the orchestrator: not for `tasks list`
      const verdicts = await findFlakyTasks(suite, { n: opts.runs, concurrency: opts.concurrency, signal: controller.signal });
      if (opts.json) process.stdout.write(`${JSON.stringify(verdicts, null, 2)}\n`);
      else {
        for (const v of verdicts) {
          const rewards = Object.entries(v.rewards)
            .map(([harness, rs]) => `${harness} ${rs.map((r) => (r === null ? '-' : String(Math.round(r * 1000) / 1000))).join(' ')}`)
            .join(' · ');
          process.stdout.write(
            `${v.flaky ? 'FLAKY' : v.judged ? 'ok   ' : 'n/a  '}  ${v.taskId.padEnd(32)} ${rewards}${v.notes.length ? `  ${v.notes.join('; ')}` : ''}\n`,
          );
        }
        const flaky = verdicts.filter((v) => v.flaky).length;
        const unjudged = verdicts.filter((v) => !v.flaky && !v.judged).length;
        process.stdout.write(
          `${flaky} of ${verdicts.length} tasks flaky (${opts.runs} rollouts each with the oracle and with an agent that does nothing)${unjudged ? `; ${unjudged} not judged: fewer than two graded rollouts (n/a), run again` : ''}\n`,
        );
      }
      if (verdicts.some((v) => v.flaky || !v.judged)) process.exitCode = 1;
    });
  addTasksImportCommand(tasks);
  return tasks;
}
