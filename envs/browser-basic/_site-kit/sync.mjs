#!/usr/bin/env node
// Copies the shared site kit into every task of the suite (a task image's build context is its own
// environment/ folder, so each task carries a copy). `node sync.mjs --check` fails when a copy is stale.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const KIT = path.dirname(fileURLToPath(import.meta.url));
const SUITE = path.dirname(KIT);
/** kit file → where it goes inside a task folder. */
export const KIT_COPIES = {
  'site.mjs': 'environment/site/kit/site.mjs',
  'kit.css': 'environment/site/kit/kit.css',
  'kit.js': 'environment/site/kit/kit.js',
  'start-site': 'environment/site/kit/start-site',
  'grade-kit.mjs': 'tests/grade-kit.mjs',
  'test.sh': 'tests/test.sh',
  'solve.sh': 'solution/solve.sh',
};

export function taskDirs() {
  return readdirSync(SUITE)
    .map((name) => path.join(SUITE, name))
    .filter((dir) => statSync(dir).isDirectory() && existsSync(path.join(dir, 'task.toml')))
    .sort();
}

/** The copies that differ from the kit, as "task/path" strings. */
export function staleCopies() {
  const stale = [];
  for (const dir of taskDirs()) {
    for (const [file, target] of Object.entries(KIT_COPIES)) {
      const dest = path.join(dir, target);
      if (!existsSync(dest) || !readFileSync(dest).equals(readFileSync(path.join(KIT, file)))) stale.push(`${path.basename(dir)}/${target}`);
    }
  }
  return stale;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = staleCopies();
    if (stale.length) {
      console.error(`stale site-kit copies (run node envs/browser-basic/_site-kit/sync.mjs):\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log('every task carries the current site kit');
  } else {
    for (const dir of taskDirs()) {
      for (const [file, target] of Object.entries(KIT_COPIES)) {
        const src = path.join(KIT, file);
        const dest = path.join(dir, target);
        mkdirSync(path.dirname(dest), { recursive: true });
        writeFileSync(dest, readFileSync(src));
        chmodSync(dest, statSync(src).mode & 0o777);
      }
    }
    console.log(`synced the site kit into ${taskDirs().length} tasks`);
  }
}
