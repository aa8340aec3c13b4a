import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Debian's interpreter, whose jinja2 is python3-jinja2 (scripts/setup.sh installs it). */
export const PYTHON = process.env.OPENFORGE_REFERENCE_PYTHON ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/jinja_reference.py', import.meta.url));

export type ReferenceResult = { ok: string } | { error: string };

/** Runs one op of test/helpers/python/jinja_reference.py over every item: Python's own answer for each. */
export function pythonReference(op: 'dumps' | 'float_repr' | 'strip' | 'render' | 'chat', items: unknown[]): ReferenceResult[] {
  const out = execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify({ op, items }), maxBuffer: 512 * 1024 * 1024 });
  return JSON.parse(out.toString('utf8')) as ReferenceResult[];
}
