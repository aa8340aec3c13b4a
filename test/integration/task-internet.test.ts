import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../src/config/run.js';
import { executeRun } from '../../src/rollout/run.js';
import type { RunSummary } from '../../src/analytics/run-summary.js';

/**
 * `[environment] allow_internet` and `[verifier] allow_internet` on a proxy-only run. There is no internet here:
 * "the internet" is a server on the host's address on Docker's default bridge, which is not the proxy's address
 * and which a proxy-only rollout has no route to. Each task's agent phase and grader try to reach it and say
 * whether they did; the server says who came.
 */
const TASKS = {
  'net-agent': '[environment]\nallow_internet = true\n',
  'net-verifier': '[verifier]\nallow_internet = true\n',
  'net-none': '',
};

let server: http.Server;
const seen: string[] = [];
let summary: RunSummary;
let output = '';

beforeAll(async () => {
  const bridge = await new Docker().getNetwork('bridge').inspect();
  const host = bridge.IPAM?.Config?.[0]?.Gateway as string;
  server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('reached\n');
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  const suite = mkdtempSync(path.join(os.tmpdir(), 'of-internet-'));
  for (const [id, toml] of Object.entries(TASKS)) {
    const dir = path.join(suite, id);
    mkdirSync(path.join(dir, 'tests'), { recursive: true });
    mkdirSync(path.join(dir, 'solution'), { recursive: true });
    writeFileSync(path.join(dir, 'task.toml'), `${toml}${toml.includes('[environment]') ? '' : '[environment]\n'}env = { PROBE = "${url}" }\n`);
    writeFileSync(path.join(dir, 'instruction.md'), 'Fetch $PROBE.\n');
    writeFileSync(
      path.join(dir, 'solution', 'solve.sh'),
      `#!/bin/bash\nif curl -sf -m 5 "$PROBE/agent/${id}"; then echo 1 > /tmp/agent-reached; else echo 0 > /tmp/agent-reached; fi\n`,
    );
    writeFileSync(
      path.join(dir, 'tests', 'test.sh'),
      `#!/bin/bash\nif curl -sf -m 5 "$PROBE/verifier/${id}"; then v=1; else v=0; fi\n` +
        `echo "{\\"reward\\": 1, \\"agent\\": $(cat /tmp/agent-reached), \\"verifier\\": $v}" > /logs/verifier/reward.json\n`,
    );
  }
  output = mkdtempSync(path.join(os.tmpdir(), 'of-internet-run-'));
  summary = await executeRun(
    resolveRunConfig({ tasks: suite, harness: 'oracle', network: 'proxy-only', concurrency: 2, output }, path.join(output, 'run.yaml')),
    { fresh: true },
  );
}, 600_000);

afterAll(() => server?.close());

const reached = (id: string) => {
  const dir = path.join(output, summary.runId, id, '0-a1', 'verifier', 'reward.json');
  const { agent, verifier } = JSON.parse(readFileSync(dir, 'utf8')) as { agent: number; verifier: number };
  return { agent, verifier };
};

describe('allow_internet on a proxy-only run', () => {
  it('gives [environment] allow_internet the internet from the start, [verifier] allow_internet to the grader alone, and others none', () => {
    expect(summary.tasks.map((t) => [t.taskId, t.rewards])).toEqual([
      ['net-agent', [1]],
      ['net-none', [1]],
      ['net-verifier', [1]],
    ]);
    expect(reached('net-agent')).toEqual({ agent: 1, verifier: 1 });
    expect(reached('net-verifier')).toEqual({ agent: 0, verifier: 1 });
    expect(reached('net-none')).toEqual({ agent: 0, verifier: 0 });
    expect(seen.sort()).toEqual(['/agent/net-agent', '/verifier/net-agent', '/verifier/net-verifier']);
  });
});
