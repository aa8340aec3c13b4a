import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { workspaceImage } from '../helpers/docker.js';

describe('integrations/verl (Python, python3 -m unittest against a real openforge serve)', () => {
  it('passes its unit tests', async () => {
    await workspaceImage();
    const res = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'integrations/verl', '-t', 'integrations/verl', '-v'], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(res.status, `${res.stdout}\n${res.stderr}`).toBe(0);
    expect(res.stderr).toMatch(/Ran [1-9]\d* tests/);
    expect(res.stderr).toMatch(/\nOK/);
  }, 320_000);
});
