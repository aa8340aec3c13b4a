import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as toToml } from 'smol-toml';
import { UserError } from '../../util/errors.js';
import { packageRoot } from '../../util/paths.js';
import type { ImportedTask } from './types.js';

/** The compiled WebJudge script (src/in-container/graders/webjudge.ts), copied into every imported task's tests/. */
export function webjudgeScriptPath(): string {
  return path.join(packageRoot(), 'dist/in-container/graders/webjudge.js');
}

const TEST_SH = `#!/usr/bin/env bash
# LLM-judged live-site task: tests/webjudge.mjs asks the judge endpoint (OPENFORGE_JUDGE_BASE_URL,
# OPENFORGE_JUDGE_MODEL) for key points, key screenshots and a verdict, and writes reward.json.
# A reward is always written (0 when judging failed).
dir="$(cd "$(dirname "$0")" && pwd)"
out="\${OPENFORGE_VERIFIER_DIR:-/logs/verifier}"
mkdir -p "$out"
rm -f "$out/reward.txt" "$out/reward.json"
timeout 550 node "$dir/webjudge.mjs"
if [ ! -s "$out/reward.txt" ] && [ ! -s "$out/reward.json" ]; then
  echo "judge produced no reward; scoring 0"
  echo 0 > "$out/reward.txt"
fi
exit 0
`;

function instruction(t: ImportedTask): string {
  return `The browser shows ${t.website} (${t.startUrl}). This is the live website.

${t.task}

When you are done, finish with the answer to the request if it asks for information.
`;
}

function taskToml(t: ImportedTask): string {
  const toml = toToml({
    version: '1.0',
    task: { name: t.id, description: t.task.length > 160 ? `${t.task.slice(0, 157)}...` : t.task },
    metadata: { source: t.source, website: t.website, grading: 'llm_judge (WebJudge)', ...t.metadata },
    agent: { timeout_sec: 900 },
    verifier: { timeout_sec: 600 },
    environment: {
      kind: 'browser',
      cpus: 1,
      memory_mb: 2048,
      // A live site: runs only where the run's network allows it (run.yaml `network: public`).
      allow_internet: true,
      browser: { start_url: t.startUrl, viewport: { width: 1280, height: 800 } },
    },
  });
  return `# Imported from ${t.source === 'webvoyager' ? 'WebVoyager' : 'Online-Mind2Web'} by \`openforge tasks import\`; needs \`network: public\` and a judge endpoint.\n${toml}\n`;
}

/** Writes one task in Harbor layout under outDir/<id>/ (replacing an earlier import of the same id). */
export function writeImportedTask(t: ImportedTask, outDir: string, judgeScript: string): string {
  const dir = path.join(outDir, t.id);
  mkdirSync(path.join(dir, 'environment'), { recursive: true });
  mkdirSync(path.join(dir, 'tests'), { recursive: true });
  writeFileSync(path.join(dir, 'task.toml'), taskToml(t));
  writeFileSync(path.join(dir, 'instruction.md'), instruction(t));
  writeFileSync(path.join(dir, 'environment', 'Dockerfile'), 'FROM openforge/browser\n');
  writeFileSync(path.join(dir, 'tests', 'test.sh'), TEST_SH, { mode: 0o755 });
  writeFileSync(path.join(dir, 'tests', 'webjudge.mjs'), judgeScript);
  writeFileSync(
    path.join(dir, 'tests', 'task.json'),
    `${JSON.stringify({ task_id: t.metadata.source_id, source: t.source, task: t.task, website: t.website }, null, 2)}\n`,
  );
  return dir;
}

export function readJudgeScript(): string {
  const file = webjudgeScriptPath();
  if (!existsSync(file)) throw new UserError(`${file} is missing`, 'run `npm run build` first');
  return readFileSync(file, 'utf8');
}
