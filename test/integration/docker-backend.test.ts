import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { packFiles } from '../../src/sandbox/docker/archive.js';
import { hostOomKills } from '../../src/sandbox/docker/host-cgroup.js';
import { LABEL_NETWORK_HOLDER } from '../../src/sandbox/docker/network-holders.js';
import { LABEL_RUN } from '../../src/sandbox/labels.js';
import { OOM_KILLS_COMMAND, parseOomKills } from '../../src/sandbox/oom-kills.js';
import type { RunNetwork, Sandbox, SandboxSpec } from '../../src/sandbox/types.js';
import { workspaceImage } from '../helpers/docker.js';

let backend: DockerBackend;
let image: string;
const runId = `test-backend-${process.pid}`;

function spec(network: RunNetwork, over: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    runId,
    rolloutId: `${runId}-${Math.random().toString(36).slice(2, 8)}`,
    image,
    workdir: '/workspace',
    resources: { cpus: 1, memoryMb: 256, pids: 256 },
    network,
    lifetimeSec: 300,
    ...over,
  };
}

beforeAll(async () => {
  ({ backend, image } = await workspaceImage());
});

afterAll(async () => {
  await backend.removeRun(runId);
});

describe('DockerBackend with the real engine', () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await backend.create(spec({ mode: 'none' }));
  });

  it('runs commands with their real exit code, output and environment', async () => {
    const res = await box.exec(['sh', '-c', 'echo out; echo err >&2; echo $GREETING; exit 3'], { env: { GREETING: 'hi' } });
    expect(res.exitCode).toBe(3);
    expect(res.stdout).toBe('out\nhi\n');
    expect(res.stderr).toBe('err\n');
    expect(res.timedOut).toBe(false);
  });

  it('feeds stdin to a command', async () => {
    const res = await box.exec(['sh', '-c', 'tr a-z A-Z'], { stdin: 'shout\n' });
    expect(res.stdout).toBe('SHOUT\n');
  });

  it('kills a command at its timeout inside the container', async () => {
    const res = await box.exec(['sleep', '30'], { timeoutSec: 1 });
    expect(res.timedOut).toBe(true);
    expect(res.durationMs).toBeLessThan(10_000);
    const ps = await box.exec(['sh', '-c', 'ps -eo comm | grep -c "^sleep$" || true']);
    expect(ps.stdout.trim()).toBe('1'); // only the container's own lifetime sleep is left
  });

  it('is locked down: capabilities dropped, no-new-privileges, pids and memory limits, no network', async () => {
    const status = await box.exec(['sh', '-c', 'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status']);
    const capEff = BigInt(`0x${/CapEff:\s+([0-9a-f]+)/.exec(status.stdout)![1]}`);
    expect(capEff & (1n << 13n)).toBe(0n); // CAP_NET_RAW
    expect(capEff & (1n << 21n)).toBe(0n); // CAP_SYS_ADMIN
    expect(status.stdout).toMatch(/NoNewPrivs:\s+1/);
    const pids = await box.exec(['sh', '-c', 'cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null']);
    expect(pids.stdout.trim()).toBe('256');
    const net = await box.exec(['sh', '-c', 'ls /sys/class/net']);
    expect(net.stdout.trim()).toBe('lo');
    const init = await box.exec(['sh', '-c', 'cat /proc/1/comm']);
    expect(init.stdout.trim()).toMatch(/init|tini/);
  });

  it('copies files in and out', async () => {
    const src = mkdtempSync(path.join(os.tmpdir(), 'of-in-'));
    mkdirSync(path.join(src, 'sub'));
    writeFileSync(path.join(src, 'sub', 'a.txt'), 'alpha');
    writeFileSync(path.join(src, 'run.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
    await box.copyIn(src, '/data/in');
    expect((await box.exec(['/data/in/run.sh'])).stdout).toBe('ran\n');
    await box.writeFiles([{ path: '/data/out/b.txt', content: 'beta' }]);
    const dest = mkdtempSync(path.join(os.tmpdir(), 'of-out-'));
    expect(await box.copyOut('/data', dest)).toBe(true);
    expect(readFileSync(path.join(dest, 'data', 'in', 'sub', 'a.txt'), 'utf8')).toBe('alpha');
    expect(readFileSync(path.join(dest, 'data', 'out', 'b.txt'), 'utf8')).toBe('beta');
    expect(await box.copyOut('/no/such/path', dest)).toBe(false);
  });

  it('copies into a folder that exists without touching what is there, its owner or its mode', async () => {
    await box.exec(['sh', '-c', 'mkdir -p /srv/kept && echo old > /srv/kept/old.txt && chown 1000:1000 /srv/kept && chmod 0770 /srv/kept']);
    const src = mkdtempSync(path.join(os.tmpdir(), 'of-in-'));
    writeFileSync(path.join(src, 'new.txt'), 'new');
    await box.copyIn(src, '/srv/kept');
    const listing = await box.exec(['sh', '-c', 'cat /srv/kept/old.txt /srv/kept/new.txt; stat -c "%u:%g %a" /srv/kept']);
    expect(listing.stdout).toBe('old\nnew1000:1000 770\n');
  });

  describe('one exec carrying files in and a folder out', () => {
    const files = (tag: string) => [
      { path: `/srv/step/${tag}/run.sh`, content: `#!/bin/sh\necho ran ${tag}\n`, mode: 0o755 },
      { path: `/srv/step/${tag}/deep/data.bin`, content: Buffer.from([0, 1, 2, 255]) },
    ];

    it('empties folders, puts files in, runs the command, and brings a folder out, the exit code kept', async () => {
      await box.exec([
        'sh',
        '-c',
        'mkdir -p /srv/step/old /srv/keep && echo stale > /srv/step/old/stale.txt && chown 1000:1000 /srv/keep && chmod 0770 /srv/keep',
      ]);
      const dest = mkdtempSync(path.join(os.tmpdir(), 'of-step-'));
      const res = await box.exec(['sh', '-c', '/srv/step/a/run.sh; echo err >&2; ls /srv/step; exit 4'], {
        emptyFirst: ['/srv/step'],
        filesIn: [...files('a'), { path: '/srv/keep/new.txt', content: 'new' }],
        copyOutAfter: { sandboxPath: '/srv/step', hostDir: dest },
      });
      expect(res.exitCode).toBe(4);
      expect(res.copiedOut).toBe(true);
      // with a copy out, stdout carries the archive and the command's own output goes to stderr
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe('ran a\nerr\na\n');
      expect([...readFileSync(path.join(dest, 'step', 'a', 'deep', 'data.bin'))]).toEqual([0, 1, 2, 255]);
      const kept = await box.exec(['sh', '-c', 'stat -c "%u:%g %a" /srv/keep; cat /srv/keep/new.txt; stat -c %a /srv/step/a/run.sh']);
      expect(kept.stdout).toBe('1000:1000 770\nnew755\n');
    });

    it('still brings the folder out when the command timed out, and says when the path was not there', async () => {
      const dest = mkdtempSync(path.join(os.tmpdir(), 'of-step-'));
      const res = await box.exec(['sh', '-c', 'echo partial > /srv/step/a/late.txt; sleep 30'], {
        timeoutSec: 1,
        copyOutAfter: { sandboxPath: '/srv/step/a', hostDir: dest },
      });
      expect(res).toMatchObject({ timedOut: true, copiedOut: true });
      expect(readFileSync(path.join(dest, 'a', 'late.txt'), 'utf8')).toBe('partial\n');
      const none = await box.exec(['true'], { copyOutAfter: { sandboxPath: '/no/such/path', hostDir: mkdtempSync(path.join(os.tmpdir(), 'of-step-')) } });
      expect(none).toMatchObject({ exitCode: 0, copiedOut: false });
    });

    it('names the folder it could not empty, as an infrastructure error', async () => {
      await expect(box.exec(['true'], { emptyFirst: ['/proc/1'] })).rejects.toThrow(/cannot empty \/proc\/1/);
    });

    it('falls back to separate copies in an image without tar', async () => {
      const bare = await backend.create(spec({ mode: 'none' }));
      try {
        await bare.exec(['sh', '-c', 'rm "$(command -v tar)"']);
        const dest = mkdtempSync(path.join(os.tmpdir(), 'of-step-'));
        for (const tag of ['b', 'c']) {
          const res = await bare.exec(['sh', '-c', `/srv/step/${tag}/run.sh; exit 5`], {
            emptyFirst: ['/srv/step'],
            filesIn: files(tag),
            copyOutAfter: { sandboxPath: '/srv/step', hostDir: path.join(dest, tag) },
          });
          expect(res).toMatchObject({ exitCode: 5, stdout: `ran ${tag}\n`, copiedOut: true });
          expect([...readFileSync(path.join(dest, tag, 'step', tag, 'deep', 'data.bin'))]).toEqual([0, 1, 2, 255]);
        }
        // emptied first: the first exec's files are gone
        expect(existsSync(path.join(dest, 'c', 'step', 'b'))).toBe(false);
      } finally {
        await bare.remove();
      }
    });
  });

  it('counts OOM kills when a process exceeds the memory limit', async () => {
    const before = await box.oomKills();
    const res = await box.exec(['python3', '-c', 'x = bytearray(600 * 1024 * 1024)']);
    expect(res.exitCode).toBe(137);
    expect(await box.oomKills()).toBeGreaterThan(before);
    // read from the host's cgroup files when the engine is local; the same count as inside the container
    const inside = parseOomKills((await box.exec(OOM_KILLS_COMMAND)).stdout);
    expect(inside).toBeGreaterThan(0);
    expect(await hostOomKills(box.id)).toBe(inside);
  });

  it('removes idempotently', async () => {
    const other = await backend.create(spec({ mode: 'none' }));
    await other.remove();
    await other.remove();
    const left = await backend.docker.listContainers({ all: true, filters: { id: [other.id] } });
    expect(left).toHaveLength(0);
  });
});

describe('network modes', () => {
  it('proxy-only reaches a server on the run network gateway and nothing else', async () => {
    const network = await backend.prepareNetwork(runId, 'proxy-only');
    const server = http.createServer((_req, res) => res.end('proxy here'));
    await new Promise<void>((r) => server.listen(0, network.proxyHost, r));
    const port = (server.address() as { port: number }).port;
    await backend.openHostPort(network, port); // the run opens its proxy's port
    try {
      const box = await backend.create(spec(network));
      const ok = await box.exec(['curl', '-s', '-m', '5', `http://${network.proxyHost}:${port}/`]);
      expect(ok.stdout).toBe('proxy here');
      const out = await box.exec(['curl', '-s', '-m', '3', '-o', '/dev/null', 'http://deb.debian.org/']);
      expect(out.exitCode).not.toBe(0);
      // Outside names fail after one short try instead of hanging a harness that looks one up (opencode).
      expect((await box.exec(['cat', '/etc/resolv.conf'])).stdout).toMatch(/^options .*timeout:1 attempts:1/m);
      expect((await box.exec(['getent', 'hosts', 'registry.npmjs.org'])).exitCode).not.toBe(0);
      await box.remove();
    } finally {
      server.close();
      await backend.releaseNetwork(network);
    }
  });
});

describe('network namespaces on a proxy-only network', () => {
  it('are borrowed one sandbox at a time, reused once the borrower is gone, replaced when killed, and removed with the network', async () => {
    const network = await backend.prepareNetwork(runId, 'proxy-only');
    const holderOf = async (box: Sandbox) => (await backend.docker.getContainer(box.id).inspect()).HostConfig.NetworkMode!.replace(/^container:/, '');
    const holders = () => backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_NETWORK_HOLDER}=${network.name}`] } });
    try {
      const a = await backend.create(spec(network));
      const b = await backend.create(spec(network));
      const [ha, hb] = [await holderOf(a), await holderOf(b)];
      expect(ha).toMatch(/^[0-9a-f]{64}$/);
      expect(hb).not.toBe(ha); // two live sandboxes never share a namespace
      // a sandbox's address is its holder's, on the run's network
      const holderIp = (await backend.docker.getContainer(ha).inspect()).NetworkSettings.Networks[network.name!]!.IPAddress;
      expect(await a.address?.()).toBe(holderIp);
      // a leaves a listener behind; once a is removed it is gone with a's processes, and its port is free again
      await a.exec(['sh', '-c', 'nohup python3 -m http.server 8765 >/dev/null 2>&1 & sleep 0.5']);
      await a.remove();
      const c = await backend.create(spec(network));
      expect(await holderOf(c)).toBe(ha);
      const listen = await c.exec(['python3', '-c', 'import socket; s = socket.socket(); s.bind(("0.0.0.0", 8765)); print("bound")']);
      expect(listen.stdout.trim()).toBe('bound');
      // b's holder is killed by hand: b is removed, and the next sandbox gets a new holder instead of failing
      await backend.docker.getContainer(hb).kill();
      await b.remove();
      const d = await backend.create(spec(network));
      const hd = await holderOf(d);
      expect([ha, hb]).not.toContain(hd);
      expect((await d.exec(['true'])).exitCode).toBe(0);
      expect((await holders()).map((h) => h.Id).sort()).toEqual([ha, hd].sort()); // the dead one was removed
      await c.remove();
      await d.remove();
    } finally {
      await backend.releaseNetwork(network);
    }
    expect(await holders()).toHaveLength(0);
  });

  it('name a missing image with how to build it, and a holder that cannot start with its image and network, leaving no container', async () => {
    const network = await backend.prepareNetwork(runId, 'proxy-only');
    const noSleep = `openforge-test/no-sleep:${process.pid}`;
    // an image with one file and no `sleep`: the holder's process cannot start
    const imported = await backend.docker.importImage(packFiles([{ name: 'readme', content: 'no programs here\n' }]), {
      repo: 'openforge-test/no-sleep',
      tag: String(process.pid),
    });
    await new Promise((resolve, reject) => backend.docker.modem.followProgress(imported, (err) => (err ? reject(err) : resolve(undefined))));
    try {
      const missing = backend.create(spec(network, { image: 'openforge-test/never-built:1' }));
      await expect(missing).rejects.toMatchObject({
        type: 'infrastructure',
        message: 'image openforge-test/never-built:1 not found: build it with `openforge images build`',
      });
      const broken = backend.create(spec(network, { image: noSleep }));
      await expect(broken).rejects.toMatchObject({ type: 'infrastructure' });
      await expect(broken).rejects.toThrow(
        new RegExp(`^cannot start a network holder \\(\`sleep\` from ${noSleep}\\) on network ${network.name}: .*executable file not found`),
      );
      const left = await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`, `${LABEL_NETWORK_HOLDER}=${network.name}`] } });
      expect(left).toHaveLength(0);
    } finally {
      await backend.releaseNetwork(network);
      await backend.docker.getImage(noSleep).remove({ force: true });
    }
  });

  it('are used only when the run expects two sandboxes or more per sandbox alive at once; otherwise each joins the network', async () => {
    const few = await backend.prepareNetwork(runId, 'proxy-only', { sandboxes: 3, atOnce: 2 });
    expect(few.lendNamespaces).toBe(false);
    expect((await backend.prepareNetwork(runId, 'proxy-only', { sandboxes: 4, atOnce: 2 })).lendNamespaces).toBe(true);
    expect((await backend.prepareNetwork(runId, 'proxy-only')).lendNamespaces).toBe(true); // no plan: a long run
    try {
      const box = await backend.create(spec(few));
      const info = await backend.docker.getContainer(box.id).inspect();
      expect(info.HostConfig.NetworkMode).toBe(few.name);
      expect(await box.address?.()).toBe(info.NetworkSettings.Networks[few.name!]!.IPAddress);
      expect((await box.exec(['cat', '/etc/resolv.conf'])).stdout).toMatch(/^options .*timeout:1 attempts:1/m);
      await box.remove();
    } finally {
      await backend.releaseNetwork(few);
    }
  });
});

describe('reaper', () => {
  it('removes containers whose owning process is gone, and keeps those of live owners', async () => {
    // A child process (the compiled backend from `npm run build`) creates a container, then is SIGKILLed.
    const script = `
      import { DockerBackend } from '${path.resolve('dist/sandbox/docker/backend.js')}';
      const b = new DockerBackend();
      const box = await b.create({ runId: '${runId}-dead', rolloutId: 'x', image: '${image}', resources: { cpus: 1, memoryMb: 128, pids: 64 }, network: { mode: 'none' }, lifetimeSec: 600 });
      console.log(box.id);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const id = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
    const live = await backend.create(spec({ mode: 'none' }));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const report = await backend.reap();
    expect(report.containers).toBeGreaterThanOrEqual(1);
    expect(await backend.docker.listContainers({ all: true, filters: { id: [id] } })).toHaveLength(0);
    expect(await backend.docker.listContainers({ all: true, filters: { id: [live.id] } })).toHaveLength(1);
    const mine = await backend.docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } });
    expect(mine.length).toBeGreaterThan(0);
  });
});
