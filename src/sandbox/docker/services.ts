import type Docker from 'dockerode';
import { RolloutError, errorMessage } from '../../util/errors.js';
import { LABEL_OWNER, LABEL_ROLLOUT, LABEL_RUN } from '../labels.js';
import type { SandboxSpec, ServiceContainerSpec } from '../types.js';
import { imageNotFound, isGone, isImageMissing } from './errors.js';

/** Marks a task's service container among a run's containers (its value: the service's name). */
export const LABEL_SERVICE = 'openforge.service';

/** Limits of one service container: a mock API or a small database, not the task itself. */
const SERVICE_MEMORY_BYTES = 1024 * 1024 * 1024;
const SERVICE_PIDS = 256;
const SERVICE_CPUS = 1;
/** What a service may do as root in its own filesystem (a database's chown, a server's setuid), as a rollout container. */
const SERVICE_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'NET_BIND_SERVICE'];
const POLL_MS = 200;

/**
 * Starts a sandbox's services in the network namespace of `namespaceOf` (`container:<id>`): they listen on
 * the sandbox's own loopback, so the sandbox reaches them and no other container or host does, whatever the
 * run's network. Resolves once each runs and its health check (when it has one) passes; on failure every
 * service started is removed and the error names the service and what it printed.
 */
export async function startServices(docker: Docker, spec: SandboxSpec, namespaceOf: string, owner: string): Promise<Docker.Container[]> {
  const started: Docker.Container[] = [];
  try {
    for (const service of spec.services ?? []) started.push(await startOne(docker, spec, service, namespaceOf, owner));
    await Promise.all(started.map((c, i) => waitHealthy(c, spec.services![i]!)));
    return started;
  } catch (err) {
    await removeServices(started);
    throw err;
  }
}

async function startOne(docker: Docker, spec: SandboxSpec, service: ServiceContainerSpec, namespaceOf: string, owner: string): Promise<Docker.Container> {
  let container: Docker.Container;
  try {
    container = await docker.createContainer({
      Image: service.image,
      ...(service.command ? { Cmd: service.command } : {}),
      ...(service.entrypoint ? { Entrypoint: service.entrypoint } : {}),
      Env: Object.entries(service.env).map(([k, v]) => `${k}=${v}`),
      Labels: { [LABEL_RUN]: spec.runId, [LABEL_ROLLOUT]: spec.rolloutId, [LABEL_OWNER]: owner, [LABEL_SERVICE]: service.name },
      ...(service.healthcheck
        ? {
            Healthcheck: {
              Test: service.healthcheck.test,
              Interval: Math.round(service.healthcheck.intervalSec * 1e9),
              Timeout: Math.round(service.healthcheck.timeoutSec * 1e9),
              Retries: service.healthcheck.retries,
            },
          }
        : {}),
      HostConfig: {
        Init: true,
        NetworkMode: `container:${namespaceOf}`,
        NanoCpus: SERVICE_CPUS * 1e9,
        Memory: SERVICE_MEMORY_BYTES,
        MemorySwap: SERVICE_MEMORY_BYTES,
        PidsLimit: SERVICE_PIDS,
        CapDrop: ['ALL'],
        CapAdd: SERVICE_CAPABILITIES,
        SecurityOpt: ['no-new-privileges'],
        ...(spec.runtime ? { Runtime: spec.runtime } : {}),
      },
    });
  } catch (err) {
    if (isImageMissing(err)) throw imageNotFound(service.image);
    throw new RolloutError('infrastructure', `cannot create the task's service ${service.name}: ${errorMessage(err)}`);
  }
  try {
    await container.start();
  } catch (err) {
    await removeServices([container]);
    throw new RolloutError('environment_setup', `the task's service ${service.name} did not start: ${errorMessage(err)}`);
  }
  return container;
}

async function waitHealthy(container: Docker.Container, service: ServiceContainerSpec): Promise<void> {
  const hc = service.healthcheck;
  const deadline = Date.now() + (hc ? (hc.intervalSec + hc.timeoutSec) * (hc.retries + 1) * 1000 : 10_000);
  for (;;) {
    const state = (await container.inspect()).State;
    if (!state?.Running) {
      throw new RolloutError('environment_setup', `the task's service ${service.name} exited (code ${state?.ExitCode}): ${await tail(container)}`);
    }
    const health = state.Health?.Status;
    if (!hc || health === 'healthy') return;
    if (health === 'unhealthy' || Date.now() > deadline) {
      throw new RolloutError('environment_setup', `the task's service ${service.name} did not become healthy: ${await tail(container)}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function tail(container: Docker.Container): Promise<string> {
  const text = await serviceLog(container).catch(() => '');
  return text.trim().split('\n').slice(-10).join('\n') || '(it printed nothing)';
}

/** Its output so far, stdout and stderr as the engine keeps them. */
export async function serviceLog(container: Docker.Container): Promise<string> {
  const buf = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
  // the engine frames a non-TTY container's log in 8-byte headers per chunk
  const out: Buffer[] = [];
  for (let i = 0; i + 8 <= buf.length;) {
    const size = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(out).toString('utf8');
}

/** Never rejects on a service that is gone already. */
export async function removeServices(containers: Docker.Container[]): Promise<void> {
  await Promise.all(
    containers.map((c) =>
      c.remove({ force: true, v: true }).catch((err: unknown) => {
        if (!isGone(err)) throw err;
      }),
    ),
  );
}
