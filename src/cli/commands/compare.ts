import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { runBehaviour } from '../../analytics/behaviour/run-behaviour.js';
import { comparisonHtml } from '../../analytics/compare/compare-html.js';
import { compareRuns } from '../../analytics/compare/compare-runs.js';
import { formatComparison } from '../../analytics/compare/format-compare.js';
import { locateStore } from '../../store/store-location.js';
import { Store } from '../../store/store.js';
import { UserError } from '../../util/errors.js';
import { toInt } from '../to-int.js';

interface CompareCliOptions {
  runA?: string;
  runB?: string;
  json?: boolean;
  html?: string;
  inspector?: string;
  inspectorB?: string;
  seed: number;
  resamples: number;
}

const SIDE = "a run's output folder (holds openforge.db), the run's own folder inside it, or a store file";

/** `openforge compare`: two runs' rewards and behaviour side by side, with differences and bootstrap intervals. */
export function compareCommand(): Command {
  return new Command('compare')
    .description(
      'compare two runs per task and overall: reward, pass@1, pass@k, pass^k and every behaviour metric, with B − A and its bootstrap interval; tasks whose outcome flipped with links to their rollouts',
    )
    .argument('<run-a>', SIDE)
    .argument('<run-b>', SIDE)
    .option('--run-a <id>', 'the run in <run-a> (default: its latest)')
    .option('--run-b <id>', 'the run in <run-b> (default: its latest)')
    .option('--json', 'print the comparison as JSON')
    .option('--html <file>', 'also write the comparison with its charts as one self-contained HTML file')
    .option(
      '--inspector <url>',
      'base URL of the inspector serving the runs (openforge inspect), for the rollout links; relative #/rollout/<id> links without it',
    )
    .option('--inspector-b <url>', "base URL of the inspector serving run B, when it is another folder's (default: --inspector)")
    .option('--seed <n>', 'seed of the bootstrap resampling: the same seed gives the same intervals', toSeed, 1)
    .option('--resamples <n>', 'bootstrap resamples', toInt, 2000)
    .action(async (dirA: string, dirB: string, opts: CompareCliOptions) => {
      const a = await runBehaviour(dirA, { runId: opts.runA });
      const b = await runBehaviour(dirB, { runId: opts.runB });
      const store = locateStore(dirA).file;
      if (a.runId === b.runId && store === locateStore(dirB).file)
        throw new UserError(
          `both sides are run ${a.runId}`,
          `name two runs with --run-a <id> and --run-b <id>; runs there: ${(await runIdsIn(store)).join(', ')}`,
        );
      const comparison = compareRuns(a, b, {
        seed: opts.seed,
        resamples: opts.resamples,
        inspector: { a: opts.inspector, b: opts.inspectorB ?? opts.inspector },
      });
      if (opts.html) writeFileSync(opts.html, comparisonHtml(comparison));
      process.stdout.write(opts.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${formatComparison(comparison)}\n`);
      if (opts.html && !opts.json) process.stdout.write(`\nwrote ${opts.html}\n`);
    });
}

async function runIdsIn(file: string): Promise<string[]> {
  const store = await Store.open(file);
  try {
    return await store.runIds();
  } finally {
    await store.close();
  }
}

function toSeed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number of at least 0, got "${value}"`);
  return n;
}
