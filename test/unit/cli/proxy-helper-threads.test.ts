import { spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/store.js';
import { CLI, startProxyCli, type ProxyCli } from '../../helpers/proxy-cli.js';
import { makeSuite } from '../../helpers/tasks.js';

/** Niceness of each thread of `pid`, the main thread first (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(pid: number): { main: number; helpers: number[] } {
  const nice = (tid: string) =>
    Number(
      readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ')[16],
    );
  const helpers = readdirSync(`/proc/${pid}/task`).filter((tid) => tid !== String(pid));
  return { main: nice(String(pid)), helpers: helpers.map(nice) };
}

describe.runIf(process.platform === 'linux')('openforge proxy: helper threads yield to the serving thread', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  async function startProxy(extra: string[]): Promise<ProxyCli> {
    const started = await startProxyCli(['--upstream', 'sim:oracle', '--tasks', makeSuite([{ id: 'hello' }]), '--open', ...extra]);
    child = started.proc;
    return started;
  }

  it('lowers every thread but the serving one to nice 19 by default, still serves and records calls, and says how to export them', async () => {
    const { url, db, proc, output } = await startProxy([]);
    const threads = threadNiceness(proc.pid!);
    expect(threads.main).toBe(0);
    // V8's platform workers (4 by default) and libuv's pool threads (4, unless UV_THREADPOOL_SIZE says otherwise)
    expect(threads.helpers.length).toBeGreaterThanOrEqual(5);
    expect(threads.helpers.every((nice) => nice === 19)).toBe(true);

    const client = new OpenAI({ baseURL: `${url}/s/rollout-a/v1`, apiKey: 'unused', maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'policy',
      messages: [{ role: 'user', content: 'Task hello: write the word done into /workspace/done.txt.' }],
    });
    expect(answer.choices[0]?.message).toBeDefined();

    const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    const store = await Store.open(db);
    try {
      expect((await store.listCalls('rollout-a')).map((call) => call.status)).toEqual([200]);
    } finally {
      await store.close();
    }
    // what it recorded, and the command that turns it into training data, which works as printed
    expect(output()).toMatch(/recorded 1 calls in 1 rollouts \(0 graded\)/);
    expect(output()).toContain(`training data: openforge export ${db} --format verl (--unrewarded keeps the ungraded)`);
    const out = path.join(path.dirname(db), 'train.jsonl');
    const exported = spawnSync(process.execPath, [CLI, 'export', db, '--format', 'verl', '--unrewarded', '--out', out], { encoding: 'utf8' });
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toContain(`wrote 1 verl rows (jsonl) from 1 rollouts of run`);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ rollout_id: 'rollout-a', reward_score: null, harness: 'external' });
  });

  it('leaves the threads alone with --helper-nice 0', async () => {
    const { proc } = await startProxy(['--helper-nice', '0']);
    const threads = threadNiceness(proc.pid!);
    expect([threads.main, ...threads.helpers].every((nice) => nice === 0)).toBe(true);
  });

  it('refuses a niceness outside 0–19 and names the flag', () => {
    const res = spawnSync(process.execPath, [CLI, 'proxy', '--upstream', 'sim:oracle', '--db', '/tmp/unused.db', '--helper-nice', '20'], { encoding: 'utf8' });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('--helper-nice takes a whole number from 0 (unchanged) to 19 (lowest priority), got "20"');
  });

  it('refuses a port past 65535 and a max-tokens cap of 0 in one line each, naming the option', () => {
    for (const [flag, value, message] of [
      ['--port', '70000', 'expected a port from 0 to 65535, got "70000"'],
      ['--max-tokens', '0', 'expected a positive whole number, got "0"'],
    ] as const) {
      const res = spawnSync(process.execPath, [CLI, 'proxy', '--upstream', 'sim:oracle', '--db', '/tmp/unused.db', flag, value], { encoding: 'utf8' });
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain(`option '${flag} <`);
      expect(res.stderr).toContain(message);
      expect(res.stderr).not.toContain('    at ');
    }
  });
});
