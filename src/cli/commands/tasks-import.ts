import type { Command } from 'commander';
import { IMPORT_SOURCES, importTasks } from '../../importers/browser/index.js';

/** `openforge tasks import --from webvoyager|mind2web FILE --out DIR`: live-site browser tasks judged by an LLM. */
export function addTasksImportCommand(tasks: Command): void {
  tasks
    .command('import')
    .description(
      'turn a WebVoyager (JSONL) or Online-Mind2Web (JSON) task file into Harbor browser tasks (live sites: run with network: public; graded by an LLM judge)',
    )
    .requiredOption('--from <source>', `task file format: ${IMPORT_SOURCES.join(' | ')}`)
    .argument('<file>', 'the benchmark task file')
    .requiredOption('--out <dir>', 'folder to write the tasks into (one sub-folder per task)')
    .action((file: string, opts: { from: string; out: string }) => {
      const { dirs } = importTasks(opts.from, file, opts.out);
      process.stdout.write(`imported ${dirs.length} ${opts.from} tasks into ${opts.out}\n`);
    });
}
