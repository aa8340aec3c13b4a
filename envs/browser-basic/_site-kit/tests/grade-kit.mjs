// Grader helper for browser-basic tasks: reads the site's state over HTTP, runs the task's checks,
// prints one [PASS]/[FAIL] line per check and writes the reward the Harbor way. Binary tasks write
// reward.txt (1 only if every check passes); partial-credit tasks write reward.json
// {"reward": passed/total, "checks": {...}}.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SITE_URL = process.env.SITE_URL ?? 'http://127.0.0.1:8000';
const OUT_DIR = process.env.OPENFORGE_VERIFIER_DIR ?? '/logs/verifier';

export async function readState() {
  let lastError;
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const res = await fetch(`${SITE_URL}/api/state`);
      if (res.ok) return await res.json();
      lastError = new Error(`GET /api/state answered ${res.status}`);
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`cannot read the site's state at ${SITE_URL}/api/state: ${lastError?.message}`);
}

/** Case- and space-insensitive text comparison (what a person would call "the same text"). */
export function sameText(a, b) {
  const norm = (s) => String(s ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
  return norm(a) === norm(b);
}

/**
 * `checks` is a list of { name, pass, detail }. Writes the reward and returns it.
 * mode "binary": 1 if all pass else 0; mode "partial": the fraction that passes.
 */
export function writeReward(checks, mode = 'binary') {
  mkdirSync(OUT_DIR, { recursive: true });
  for (const c of checks) console.log(`[${c.pass ? 'PASS' : 'FAIL'}] ${c.name}${c.detail ? ` — ${c.detail}` : ''}`);
  const passed = checks.filter((c) => c.pass).length;
  if (mode === 'partial') {
    const reward = checks.length ? Math.round((passed / checks.length) * 1000) / 1000 : 0;
    const record = { reward, checks: Object.fromEntries(checks.map((c) => [c.name, c.pass])) };
    writeFileSync(path.join(OUT_DIR, 'reward.json'), `${JSON.stringify(record)}\n`);
    console.log(`reward ${reward} (${passed}/${checks.length})`);
    return reward;
  }
  const reward = passed === checks.length && checks.length > 0 ? 1 : 0;
  writeFileSync(path.join(OUT_DIR, 'reward.txt'), `${reward}\n`);
  console.log(`reward ${reward}`);
  return reward;
}
