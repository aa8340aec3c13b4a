import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireStoreLock, lockFileOf } from '../../../src/store/store-lock.js';

const LOCK_MODULE = pathToFileURL(path.resolve(import.meta.dirname, '../../../dist/store/store-lock.js')).href;

/** A separate process that tries to take the store's lock once everyone is ready, prints whether it got it, and holds it a while. */
function contender(storeFile: string, go: string): Promise<string> {
  const script = `
    const { acquireStoreLock } = await import(${JSON.stringify(LOCK_MODULE)});
    const { existsSync } = await import('node:fs');
    while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));
    try { acquireStoreLock(${JSON.stringify(storeFile)}); console.log('got it'); await new Promise((r) => setTimeout(r, 1500)); }
    catch (err) { console.log(/in use|changing hands/.test(err.message) ? 'refused' : 'error: ' + err.message); }`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', () => resolve(out.trim()));
  });
}

describe('the store lock', () => {
  it('goes to exactly one of several processes starting on the same store at once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-lock-'));
    const storeFile = path.join(dir, 'openforge.db');
    const go = path.join(dir, 'go');
    const racing = Array.from({ length: 6 }, () => contender(storeFile, go));
    await new Promise((r) => setTimeout(r, 1500)); // every contender loaded and waiting
    writeFileSync(go, '');
    const results = await Promise.all(racing);
    expect(results.filter((r) => r === 'got it')).toHaveLength(1);
    expect(results.filter((r) => r === 'refused')).toHaveLength(5);
  }, 30_000);

  it('is taken over from a process that is gone, and released by its holder', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-lock-'));
    const storeFile = path.join(dir, 'openforge.db');
    writeFileSync(lockFileOf(storeFile), `${os.hostname()}:999999999:1`); // a pid no process has
    const release = acquireStoreLock(storeFile);
    expect(() => acquireStoreLock(storeFile)).toThrow(/in use by another openforge process/);
    release();
    expect(existsSync(lockFileOf(storeFile))).toBe(false);
  });
});
