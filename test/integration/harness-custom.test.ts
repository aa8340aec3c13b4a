import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun, STORE_FILE } from '../../src/rollout/run.js';
import { Store } from '../../src/store/store.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

/** The hook for harnesses OpenForge does not ship (ZeroClaw, in-house agents): a user-supplied binary folder. */
const AGENT_DIR = path.resolve('test/fixtures/custom-harness');

function config(extra: Record<string, unknown>) {
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-custom-'));
  return resolveRunConfig({ output, model: { upstream: 'sim:oracle' }, ...extra }, path.join(output, 'run.yaml'));
}

beforeAll(async () => {
  await workspaceImage();
});

describe('harness: custom (user-supplied binary)', () => {
  it('runs the binary with the proxy URL and secret filled in, records its calls and collects its transcript', async () => {
    const suite = makeSuite([{ id: 'custom-a', solve: '#!/bin/bash\n# step: one\necho do > /workspace/x\n# step: two\necho done > /workspace/done.txt\n' }]);
    const loaded = config({
      tasks: suite,
      harness: 'custom',
      custom_harness: {
        name: 'mini-agent',
        install_dir: AGENT_DIR,
        command: ['/opt/harness/mini-agent/mini-agent.sh', '{base_url}', '{instruction_file}', '{max_turns}'],
        env: { MINI_API_KEY: '{api_key}' },
        transcripts: ['/logs/agent/mini-transcript.jsonl'],
      },
    });
    const summary = await executeRun(loaded);
    expect(summary.harness).toBe('mini-agent');
    expect(summary.tasks[0]!.rewards).toEqual([1]);
    const store = await Store.open(path.join(loaded.outputDir, STORE_FILE));
    const [rollout] = await store.currentRollouts(summary.runId);
    const calls = await store.listCalls(rollout!.id);
    await store.close();
    expect(calls.map((c) => [c.seq, c.protocol, c.label, c.status])).toEqual([
      [1, 'chat', 'policy', 200],
      [2, 'chat', 'policy', 200],
      [3, 'chat', 'policy', 200],
    ]);
    const transcript = path.join(loaded.outputDir, summary.runId, 'custom-a', '0-a1', 'agent', 'mini-transcript.jsonl');
    expect(existsSync(transcript)).toBe(true);
    expect(readFileSync(transcript, 'utf8').trim().split('\n')).toHaveLength(3);
  }, 120_000);

  it('names what is missing in the config', () => {
    expect(() => config({ tasks: '.', harness: 'custom' })).toThrow(/needs a custom_harness section/);
    expect(() => config({ tasks: '.', harness: 'custom', custom_harness: { name: 'x', command: ['x'], install_dir: '/no/such/dir' } })).toThrow(
      /install_dir: \/no\/such\/dir does not exist/,
    );
    expect(() => config({ tasks: '.', harness: 'custom', custom_harness: { name: 'Bad Name', command: ['x'] } })).toThrow(/custom_harness\.name/);
    expect(() => config({ tasks: '.', harness: 'custom', network: 'none', custom_harness: { name: 'x', command: ['x'] } })).toThrow(
      /no way to reach the model proxy/,
    );
  });
});
