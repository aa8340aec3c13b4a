import { spawnSync } from 'node:child_process';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { CLI, startProxyCli } from '../../helpers/proxy-cli.js';
import { makeSuite } from '../../helpers/tasks.js';

describe('openforge proxy restarted on the same store', () => {
  it('says which earlier run a continued rollout stays in, and how to export it', async () => {
    const tasks = makeSuite([{ id: 'hello' }]);
    let db: string | undefined;
    const outputs: string[] = [];
    for (let round = 0; round < 2; round++) {
      const started = await startProxyCli(['--upstream', 'sim:oracle', '--tasks', tasks, '--open'], { db });
      db ??= started.db;
      const client = new OpenAI({ baseURL: `${started.url}/s/same-token/v1`, apiKey: 'unused', maxRetries: 0 });
      await client.chat.completions.create({
        model: 'policy',
        messages: [{ role: 'user', content: 'Task hello: write the word done into /workspace/done.txt.' }],
      });
      const exited = new Promise((resolve) => started.proc.on('exit', resolve));
      started.proc.kill('SIGTERM');
      await exited;
      outputs.push(started.output());
    }
    const firstRun = /run (proxy-\S+) recorded 1 calls in 1 rollouts/.exec(outputs[0]!)?.[1];
    expect(firstRun).toBeDefined();
    expect(outputs[0]).not.toContain('earlier run');
    const exportEarlier = `openforge export ${db} --format verl --run ${firstRun}`;
    expect(outputs[1]).toContain(`recorded 0 calls in 0 rollouts`);
    expect(outputs[1]).toContain(`1 rollouts of the earlier run ${firstRun} got more calls here and stay in it: ${exportEarlier}`);
    // the command works as printed: both calls of the rollout are in its run
    const out = `${db}.jsonl`;
    const exported = spawnSync(process.execPath, [CLI, 'export', db!, '--format', 'verl', '--run', firstRun!, '--unrewarded', '--out', out], {
      encoding: 'utf8',
    });
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toContain(`from 1 rollouts of run ${firstRun}`);
  });
});
