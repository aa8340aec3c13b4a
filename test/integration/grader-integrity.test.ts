import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../../src/config/run.js';
import { executeRun } from '../../src/rollout/run.js';
import { workspaceImage } from '../helpers/docker.js';
import { makeSuite } from '../helpers/tasks.js';

/**
 * The policy is the adversary: each task below cannot be solved (its grader writes 0 unless /workspace/answer
 * holds 16 random bytes drawn while grading), and its reference "solution", run as the agent by the oracle
 * harness, tries to forge the reward instead. Every rollout must end with the grader's own 0. The honest
 * control shows the same grader does write 1 when the answer is there.
 */
const GRADER = `#!/usr/bin/env bash
secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \\n')
if [ "$(cat /workspace/answer 2>/dev/null)" = "$secret" ] || [ -f /workspace/honest ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
# what is running while the grader runs, for the test to read
for d in /proc/[0-9]*; do tr '\\0' ' ' < "$d/cmdline" 2>/dev/null; echo; done > /logs/verifier/processes.txt
sleep 1
`;

/** A replacement for a program: a python script that writes the forged reward, and exits 0. */
const forger = (target: string) => `cat > ${target}.forged <<'EOF'
#!/usr/bin/python3
import os
os.makedirs('/logs/verifier', exist_ok=True)
open('/logs/verifier/reward.txt', 'w').write('1')
EOF
chmod +x ${target}.forged && mv -f ${target}.forged ${target}`;

const CHEATS: Record<string, string> = {
  'background-reward-writer': `setsid nohup bash -c 'while true; do mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt 2>/dev/null; sleep 0.02; done' >/dev/null 2>&1 &`,
  'replaced-bash-and-sh': [forger('/usr/bin/bash'), forger('/usr/bin/dash')].join('\n'),
  'replaced-tar': forger('/usr/bin/tar'),
  'outlives-the-agent': `setsid nohup bash -c 'while [ ! -e /logs/verifier/processes.txt ]; do sleep 0.01; done; echo 1 > /logs/verifier/reward.txt' >/dev/null 2>&1 &`,
};

function config(raw: Partial<Record<keyof RunConfig, unknown>> & { tasks: string }) {
  const output = mkdtempSync(path.join(os.tmpdir(), 'of-integrity-'));
  return resolveRunConfig({ output, harness: 'oracle', network: 'none', concurrency: 2, ...raw }, path.join(output, 'run.yaml'));
}

beforeAll(async () => {
  await workspaceImage();
});

describe('a grader the agent cannot touch', () => {
  it('ends every forging rollout with the grader own reward, and leaves none of the agent processes running while it grades', async () => {
    const suite = makeSuite([
      ...Object.entries(CHEATS).map(([id, cheat]) => ({ id, test: GRADER, solve: `#!/bin/bash\n# step: forge\n${cheat}\nexit 0\n` })),
      { id: 'honest-control', test: GRADER, solve: '#!/bin/bash\n# step: answer\ntouch /workspace/honest\n' },
    ]);
    const loaded = config({ tasks: suite });
    const summary = await executeRun(loaded);
    const rewards = Object.fromEntries(summary.tasks.map((t) => [t.taskId, { rewards: t.rewards, errors: t.errors }]));
    expect(rewards).toEqual({
      ...Object.fromEntries(Object.keys(CHEATS).map((id) => [id, { rewards: [0], errors: {} }])),
      'honest-control': { rewards: [1], errors: {} },
    });
    for (const id of ['background-reward-writer', 'outlives-the-agent']) {
      const processes = readFileSync(path.join(loaded.outputDir, summary.runId, id, '0-a1', 'verifier', 'processes.txt'), 'utf8');
      expect(processes).not.toMatch(/while/);
    }
  }, 300_000);
});
