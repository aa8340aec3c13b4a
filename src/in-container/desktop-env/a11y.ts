import { execFile } from 'node:child_process';

/** Dumps the AT-SPI accessibility tree of the desktop as XML (images/desktop/python/openforge_a11y.py). */
export const A11Y_SCRIPT = '/opt/openforge/python/openforge_a11y.py';

/** The accessibility tree as OSWorld's `a11y_tree` XML; an error names why it could not be read. */
export function a11yTree(timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('python3', [A11Y_SCRIPT], { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, env: process.env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`reading the accessibility tree failed: ${stderr.trim().split('\n').at(-1) || err.message}`));
      else resolve(stdout);
    });
  });
}
