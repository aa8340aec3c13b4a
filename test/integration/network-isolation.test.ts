import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerBackend } from '../../src/sandbox/docker/backend.js';
import type { RunNetwork, Sandbox, SandboxSpec } from '../../src/sandbox/types.js';
import { isolationRuntimes, workspaceImage } from '../helpers/docker.js';

/**
 * proxy-only means the proxy only: on a run's network a rollout reaches the host on its proxy's port and
 * nowhere else, and never another rollout of the run. The rollouts here borrow network holders, as a run's do.
 */
let backend: DockerBackend;
let image: string;
let network: RunNetwork;
const runId = `test-isolation-${process.pid}`;
const servers: http.Server[] = [];

function spec(over: Partial<SandboxSpec> = {}): SandboxSpec {
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

/** An HTTP server on every address of the host (0.0.0.0), as an inference server or a dashboard would listen. */
async function hostServer(): Promise<number> {
  const server = http.createServer((_req, res) => res.end('host service\n'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return (server.address() as AddressInfo).port;
}

/** Whether a TCP connection from inside the sandbox to host:port gets an answer (curl's exit code 0) within 3 s. */
async function reaches(box: Sandbox, host: string, port: number): Promise<boolean> {
  const res = await box.exec(['curl', '-s', '-o', '/dev/null', '--max-time', '3', `http://${host}:${port}/`]);
  return res.exitCode === 0;
}

beforeAll(async () => {
  ({ backend, image } = await workspaceImage());
  network = await backend.prepareNetwork(runId, 'proxy-only', { sandboxes: 8, atOnce: 2 });
});

afterAll(async () => {
  for (const s of servers) s.close();
  await backend.removeRun(runId);
  await backend.releaseNetwork(network);
});

const RUNTIMES = await isolationRuntimes();

describe.each(RUNTIMES.map((runtime) => [runtime ?? 'the default runtime', runtime] as const))('a proxy-only rollout, under %s', (_name, runtime) => {
  it('reaches the proxy on the host, and no other service of the host, nor another rollout of its run', async () => {
    const gateway = network.proxyHost!;
    const proxyPort = await hostServer();
    const otherPort = await hostServer();
    await backend.openHostPort(network, proxyPort);
    const [first, second] = await Promise.all([backend.create(spec({ runtime })), backend.create(spec({ runtime }))]);
    // the first rollout serves on a port of its own, as a browser task's env server does on 7000
    await first!.exec(['sh', '-c', 'setsid nohup python3 -m http.server 7000 --bind 0.0.0.0 >/dev/null 2>&1 &']);
    const serving = await first!.exec(['sh', '-c', 'for i in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:7000/ && exit 0; sleep 0.1; done; exit 1']);
    expect(serving.exitCode).toBe(0);
    const firstAddress = (await first!.address!())!;
    const secondAddress = (await second!.address!())!;
    expect(firstAddress).not.toBe(secondAddress);
    expect(await reaches(second!, gateway, proxyPort)).toBe(true);
    expect(await reaches(second!, gateway, otherPort)).toBe(false);
    expect(await reaches(second!, firstAddress, 7000)).toBe(false);
    // the host itself still reaches a rollout (the live view), and its answers come back
    expect(await fetch(`http://${firstAddress}:7000/`).then((r) => r.status)).toBe(200);
  }, 120_000);
});
