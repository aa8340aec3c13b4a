import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as toToml } from 'smol-toml';
import { readActionsFile, ReferenceActionsError } from '../../config/reference-actions.js';
import type { CanonicalAction } from '../../in-container/browser-env/actions.js';
import { UserError } from '../../util/errors.js';
import type { ImportOptions, ImportReport, TaskImporter } from '../types.js';
import { convertTask, Skip, type ConvertedTask, type OsworldTask } from './convert.js';

const TEST_SH = `#!/usr/bin/env bash
# OSWorld evaluator, run offline by the desktop image's module (python3 -m osworld_eval): tests/task.json is
# the task's OSWorld JSON, unchanged; tests/cache holds the files its cloud_file getters name.
out="\${OPENFORGE_VERIFIER_DIR:-/logs/verifier}"
mkdir -p "$out"
rm -f "$out/reward.txt" "$out/reward.json"
OSWORLD_CACHE_DIR=/tests/cache PYTHONPATH=/opt/openforge/python timeout 300 python3 -m osworld_eval /tests/task.json
if [ ! -s "$out/reward.txt" ] && [ ! -s "$out/reward.json" ]; then
  echo "the evaluator produced no reward; scoring 0"
  echo 0 > "$out/reward.txt"
fi
exit 0
`;

/** Replays solution/actions.json through the desktop env server (the FAIL of an infeasible task, or actions written for the task). */
const SOLVE_ACTIONS_SH = `#!/usr/bin/env bash
set -euo pipefail
jq -c '.[]' /solution/actions.json | while read -r action; do
  printf '{"action":%s}' "$action" | curl -sf -X POST http://127.0.0.1:7000/step -H 'content-type: application/json' \\
    -H "authorization: Bearer \${OPENFORGE_ENV_TOKEN:-}" --data @- | jq -c '{title, last_action_error}'
done
`;

/** Every *.json under the folder (evaluation_examples/examples/<domain>/<id>.json), with its domain (the parent folder's name). */
function taskFiles(dir: string): { file: string; domain: string }[] {
  const out: { file: string; domain: string }[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.json')) out.push({ file: full, domain: path.basename(d) });
    }
  };
  walk(dir);
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** Reference actions written for the task (`<actions>/<domain>/<id>.json`, a JSON array of desktop env actions), or undefined. */
function referenceActions(actionsDir: string | undefined, domain: string, id: string): CanonicalAction[] | undefined {
  const file = actionsDir && path.join(actionsDir, domain, `${id}.json`);
  if (!file || !existsSync(file)) return undefined;
  const fix = 'write a JSON array of the desktop env\'s canonical actions (docs/browser.md), e.g. [{"type": "key", "keys": ["ctrl", "s"]}]';
  let actions: CanonicalAction[];
  try {
    actions = readActionsFile(file);
  } catch (err) {
    if (err instanceof ReferenceActionsError) throw new UserError(err.message, fix);
    throw err;
  }
  if (actions.length === 0) throw new UserError(`${file} holds no action`, fix);
  return actions;
}

function writeTask(t: ConvertedTask, raw: string, outDir: string, actions?: CanonicalAction[]): string {
  const name = `osworld-${t.domain.replaceAll('_', '-')}-${t.id.slice(0, 8)}`;
  const dir = path.join(outDir, name);
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['environment/files', 'tests/cache']) mkdirSync(path.join(dir, sub), { recursive: true });
  const toml = toToml({
    version: '1.0',
    task: { name, description: t.instruction.length > 160 ? `${t.instruction.slice(0, 157)}...` : t.instruction },
    metadata: { source: 'osworld', source_id: t.id, domain: t.domain, grading: 'OSWorld evaluator (osworld_eval)' },
    agent: { timeout_sec: 900 },
    verifier: { timeout_sec: 360 },
    environment: {
      kind: 'desktop',
      cpus: 1,
      memory_mb: 2048,
      allow_internet: false,
      desktop: { launch: t.launch, ...(t.waitForWindow ? { wait_for_window: t.waitForWindow } : {}), setup_timeout_sec: 240 },
    },
  });
  writeFileSync(path.join(dir, 'task.toml'), `# Imported from OSWorld (${t.domain}/${t.id}) by \`openforge tasks import --from osworld\`.\n${toml}\n`);
  writeFileSync(path.join(dir, 'instruction.md'), `${t.instruction}\n`);
  const docker = ['FROM openforge/desktop'];
  t.setupFiles.forEach((f, i) => {
    const local = `${i}-${path.basename(f.target)}`;
    copyFileSync(f.cachePath, path.join(dir, 'environment/files', local));
    docker.push(`COPY ${JSON.stringify(['files/' + local, f.target])}`);
  });
  docker.push(...t.dockerLines);
  writeFileSync(path.join(dir, 'environment/Dockerfile'), `${docker.join('\n')}\n`);
  writeFileSync(path.join(dir, 'tests/task.json'), raw);
  writeFileSync(path.join(dir, 'tests/test.sh'), TEST_SH, { mode: 0o755 });
  for (const f of t.expectedFiles) copyFileSync(f.cachePath, path.join(dir, 'tests/cache', f.target));
  if (actions) {
    mkdirSync(path.join(dir, 'solution'), { recursive: true });
    writeFileSync(path.join(dir, 'solution/actions.json'), `${JSON.stringify(actions, null, 1)}\n`);
    writeFileSync(path.join(dir, 'solution/solve.sh'), SOLVE_ACTIONS_SH, { mode: 0o755 });
  } else if (t.solution?.kind === 'fail') {
    mkdirSync(path.join(dir, 'solution'), { recursive: true });
    writeFileSync(path.join(dir, 'solution/actions.json'), `${JSON.stringify([{ type: 'fail', reason: 'the task cannot be done' }])}\n`);
    writeFileSync(path.join(dir, 'solution/solve.sh'), SOLVE_ACTIONS_SH, { mode: 0o755 });
  } else if (t.solution?.kind === 'reference-state') {
    mkdirSync(path.join(dir, 'solution'), { recursive: true });
    writeFileSync(path.join(dir, 'solution/task.json'), raw);
    writeFileSync(path.join(dir, 'solution/solve.sh'), t.solution.script, { mode: 0o755 });
  } else if (t.solution?.kind === 'script') {
    mkdirSync(path.join(dir, 'solution/expected'), { recursive: true });
    for (const f of t.solution.files) copyFileSync(f.cachePath, path.join(dir, 'solution/expected', f.target));
    writeFileSync(path.join(dir, 'solution/solve.sh'), t.solution.script, { mode: 0o755 });
  }
  return dir;
}

/**
 * OSWorld (xlang-ai/OSWorld): a folder of task JSONs (evaluation_examples/examples) → desktop tasks whose
 * tests run the task's own evaluator offline. Downloads come from `--cache` (the file-cache mirror's layout,
 * or flat); without the file a task is reported as needing network.
 */
export const osworldImporter: TaskImporter = {
  name: 'osworld',
  description: 'OSWorld task JSONs → desktop tasks graded by their own evaluator, offline',
  source: 'a folder of OSWorld task JSONs (evaluation_examples/examples)',
  takes: ['cache', 'actions'],
  async import(source: string, outDir: string, options: ImportOptions = {}): Promise<ImportReport> {
    if (!existsSync(source) || !statSync(source).isDirectory()) {
      throw new UserError(`${source} is not a folder`, 'give the folder of OSWorld task JSONs (evaluation_examples/examples)');
    }
    if (options.cache && !existsSync(options.cache))
      throw new UserError(`cache folder ${options.cache} does not exist`, 'give the folder the task files were downloaded into');
    if (options.actions && !existsSync(options.actions))
      throw new UserError(`actions folder ${options.actions} does not exist`, 'give the folder of reference actions, <domain>/<id>.json');
    const files = taskFiles(source);
    if (files.length === 0) throw new UserError(`${source} holds no task JSON`, 'give the folder of OSWorld task JSONs (evaluation_examples/examples)');
    const report: ImportReport = { written: [], skipped: [] };
    mkdirSync(outDir, { recursive: true });
    for (const { file, domain } of files) {
      const raw = readFileSync(file, 'utf8');
      let task: OsworldTask;
      try {
        task = JSON.parse(raw) as OsworldTask;
      } catch (err) {
        report.skipped.push({ id: path.basename(file), cause: `not JSON: ${(err as Error).message}`, category: 'invalid' });
        continue;
      }
      if (!task.id || !task.evaluator) {
        report.skipped.push({ id: path.basename(file), cause: 'no id or evaluator: not an OSWorld task', category: 'invalid' });
        continue;
      }
      try {
        const converted = convertTask(task, domain, options.cache);
        report.written.push(writeTask(converted, raw, outDir, referenceActions(options.actions, domain, task.id)));
      } catch (err) {
        if (!(err instanceof Skip)) throw err;
        report.skipped.push({ id: `${domain}/${task.id}`, cause: err.message, category: err.category });
      }
    }
    return report;
  },
};
