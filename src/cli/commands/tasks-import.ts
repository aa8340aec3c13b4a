import type { Command } from 'commander';
import { importerNamed, importers } from '../../importers/registry.js';
import { UserError } from '../../util/errors.js';

/** `openforge tasks import --from <benchmark> <source> --out DIR`: a benchmark's tasks in Harbor layout. */
export function addTasksImportCommand(tasks: Command): void {
  tasks
    .command('import')
    .description(
      `bring a benchmark's tasks into Harbor layout: ${importers()
        .map((i) => `${i.name} (${i.description})`)
        .join('; ')}`,
    )
    .requiredOption(
      '--from <benchmark>',
      importers()
        .map((i) => i.name)
        .join(' | '),
    )
    .argument(
      '<source>',
      `what the benchmark ships: ${importers()
        .map((i) => `${i.source} for ${i.name}`)
        .join('; ')}`,
    )
    .requiredOption('--out <dir>', 'folder to write the tasks into (one sub-folder per task)')
    .option('--dataset <name@version>', "which dataset of a registry that holds several (harbor: registry.json's name@version)")
    .option('--checkout <dir>', "a local clone of the repository the dataset's tasks live in (harbor: its git_url, at the pinned commit)")
    .option('--cache <dir>', 'files the tasks download, fetched ahead (osworld): the tasks carry them and run offline')
    .option(
      '--actions <dir>',
      "reference actions written for the tasks (osworld: <domain>/<id>.json, the desktop env's actions): each becomes its task's solution",
    )
    .action(async (source: string, opts: { from: string; out: string; dataset?: string; checkout?: string; cache?: string; actions?: string }) => {
      const importer = importerNamed(opts.from);
      const given = (['dataset', 'checkout', 'cache', 'actions'] as const).filter((o) => opts[o] !== undefined);
      const ignored = given.filter((o) => !importer.takes?.includes(o));
      if (ignored.length)
        throw new UserError(
          `${ignored.map((o) => `--${o}`).join(', ')} ${ignored.length > 1 ? 'do' : 'does'} not apply to --from ${opts.from}`,
          `drop ${ignored.length > 1 ? 'them' : 'it'}${importer.takes?.length ? ` (${opts.from} takes ${importer.takes.map((o) => `--${o}`).join(', ')})` : ''}`,
        );
      const report = await importer.import(source, opts.out, {
        dataset: opts.dataset,
        checkout: opts.checkout,
        cache: opts.cache,
        actions: opts.actions,
      });
      process.stdout.write(`imported ${report.written.length} ${opts.from} tasks into ${opts.out}\n`);
      const byCategory = new Map<string, number>();
      for (const s of report.skipped) byCategory.set(s.category ?? 'left out', (byCategory.get(s.category ?? 'left out') ?? 0) + 1);
      for (const [category, n] of byCategory) process.stdout.write(`${category}: ${n}\n`);
      for (const s of report.skipped) process.stdout.write(`  left out ${s.id}: ${s.category ? `${s.category}: ` : ''}${s.cause}\n`);
    });
}
