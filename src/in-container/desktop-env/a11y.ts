import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ChangeClock, type Activity } from './settle.js';

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

const RESTART_AFTER_MS = 10_000;

/**
 * The accessibility tree's changes as a source of change for settling: one long-lived listener
 * (`openforge_a11y.py --watch`) prints a line per AT-SPI event that changes the tree (children added or
 * removed, states, properties such as names). Started by the first reset, when the AT-SPI bus is up (the env
 * server itself starts before it), and again by a later reset or step once it exited.
 */
export class A11yWatcher implements Activity {
  private readonly clock = new ChangeClock();
  private child: ChildProcess | undefined;
  private startedAt = -Infinity;

  get changes(): number {
    return this.clock.changes;
  }

  get lastChange(): number {
    return this.clock.lastChange;
  }

  subscribe(onChange: () => void): () => void {
    return this.clock.subscribe(onChange);
  }

  ensure(): void {
    // a listener that keeps dying (no AT-SPI bus) is not started again on every step
    if (this.child || performance.now() - this.startedAt < RESTART_AFTER_MS) return;
    this.startedAt = performance.now();
    const child = spawn('python3', [A11Y_SCRIPT, '--watch'], { stdio: ['ignore', 'pipe', 'ignore'], env: process.env });
    this.child = child;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'e') this.clock.changed();
    });
    child.on('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    child.on('error', () => {
      if (this.child === child) this.child = undefined;
    });
  }

  close(): void {
    this.child?.kill();
    this.child = undefined;
  }
}
