import { spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, startProxyCli } from '../../helpers/proxy-cli.js';
import { makeSuite } from '../../helpers/tasks.js';

const ADMIN = 'replica-flags-admin';

/** A loopback port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('openforge proxy: --eject-after and --eject-for set when a failing replica leaves routing', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  /** A proxy in front of the sim and a replica that refuses connections; calls from 8 rollouts, then its status. */
  async function callsThroughADeadReplica(flags: string[]) {
    const dead = `http://127.0.0.1:${await closedPort()}/v1`;
    const started = await startProxyCli(['--upstream', 'sim:oracle', '--upstream', dead, '--tasks', makeSuite([{ id: 'hello' }]), '--open', ...flags], {
      env: { ...process.env, OPENFORGE_ADMIN_TOKEN: ADMIN },
    });
    child = started.proc;
    for (let rollout = 0; rollout < 8; rollout++) {
      const client = new OpenAI({ baseURL: `${started.url}/s/rollout-${rollout}/v1`, apiKey: 'unused', maxRetries: 0 });
      const answer = await client.chat.completions.create({
        model: 'policy',
        messages: [{ role: 'user', content: 'Task hello: write the word done into /workspace/done.txt.' }],
      });
      expect(answer.choices[0]?.message).toBeDefined(); // the live replica answered each rollout sticky to the dead one
    }
    const status = await (await fetch(`${started.url}/control/status`, { headers: { authorization: `Bearer ${ADMIN}` } })).json();
    return { replica: status.upstreams.find((u: { url: string }) => u.url === dead), output: started.output() };
  }

  it('takes a replica out of routing after the given failures, for the given time', async () => {
    const { replica, output } = await callsThroughADeadReplica(['--eject-after', '1', '--eject-for', '60']);
    expect(replica).toMatchObject({ in_routing: false, consecutive_failures: 1 });
    expect(Date.parse(replica.ejected_until) - Date.now()).toBeGreaterThan(50_000);
    expect(output).toMatch(/failed 1 times in a row; its rollouts' calls go to the next replica for 60 s/);
  });

  it('never takes it out with --eject-after 0: every call of its rollouts tries it first', async () => {
    const { replica, output } = await callsThroughADeadReplica(['--eject-after', '0']);
    expect(replica.in_routing).toBe(true);
    expect(replica.consecutive_failures).toBeGreaterThan(1);
    expect(output).not.toMatch(/times in a row/);
  });

  it('refuses a negative failure count and a time of 0, naming the flag', () => {
    for (const [flag, value, message] of [
      ['--eject-after', '-1', '--eject-after takes a whole number of failures (0: never take a replica out of routing), got "-1"'],
      ['--eject-for', '0', '--eject-for takes a number of seconds above 0, got "0"'],
    ] as const) {
      const res = spawnSync(process.execPath, [CLI, 'proxy', '--upstream', 'sim:oracle', '--db', '/tmp/unused.db', flag, value], { encoding: 'utf8' });
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain(message);
    }
  });
});
