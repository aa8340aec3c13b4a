/**
 * A FAKE Kubernetes API server: no control plane can run on this machine, so this serves the subset of
 * the API the KubernetesBackend uses (pods create/get/list/watch/delete/log/exec, configmaps,
 * networkpolicies, server-side dry runs, owner-reference garbage collection) over real HTTP and a real
 * WebSocket (v5.channel.k8s.io / v4), reached through the real @kubernetes/client-node via a kubeconfig.
 *
 * Its "kubelet" runs each pod as a real Docker container (so exec, tar copies, exit codes, memory limits
 * and a missing image behave as they really do) on an internal Docker network whose gateway stands in for
 * the address the recording proxy listens on. Bodies are checked against the official schemas
 * (kubernetes-models) and answered 422 when invalid, as the API server would. Failures a single machine
 * cannot produce (Unschedulable, a pod OOMKilled, …) are reported when a test asks for them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Duplex } from 'node:stream';
import type { KubernetesObject, V1Container, V1Pod, V1PodStatus } from '@kubernetes/client-node';
import Docker from 'dockerode';
import { WebSocketServer, type WebSocket } from 'ws';
import { stringify } from 'yaml';
import { parseQuantity } from '../../src/sandbox/kubernetes/quantity.js';
import { validateManifest } from './k8s-schemas.js';

const FAKE_LABEL = 'openforge.fake-kube';
type Resource = 'pods' | 'configmaps' | 'networkpolicies';
const KINDS: Record<Resource, { kind: string; apiVersion: string }> = {
  pods: { kind: 'Pod', apiVersion: 'v1' },
  configmaps: { kind: 'ConfigMap', apiVersion: 'v1' },
  networkpolicies: { kind: 'NetworkPolicy', apiVersion: 'networking.k8s.io/v1' },
};
const ROUTE = /^\/(?:api\/v1|apis\/networking\.k8s\.io\/v1)\/namespaces\/([^/]+)\/(pods|configmaps|networkpolicies)(?:\/([^/]+))?(?:\/(log|exec))?$/;

interface Watcher {
  namespace: string;
  resource: Resource;
  matches: (o: KubernetesObject) => boolean;
  res: http.ServerResponse;
}

interface Kubelet {
  container?: Docker.Container;
  volumes: string[];
  deadline?: NodeJS.Timeout;
  stopped: boolean;
}

export interface FakeKubeOptions {
  /** Namespaces the fake's user may not write (creates answer 403 Forbidden). */
  forbiddenNamespaces?: string[];
  /** Called at pod creation: a status returned here is reported instead of running the pod. */
  podStatusOverride?: (pod: V1Pod) => V1PodStatus | undefined;
}

export class FakeKubeApi {
  readonly id = `fake-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly docker = new Docker();
  readonly token = randomBytes(16).toString('hex');
  /** Every request as "METHOD path", for tests that check what was (not) done. */
  readonly requests: string[] = [];
  private readonly objects = new Map<string, KubernetesObject>();
  private readonly watchers = new Set<Watcher>();
  private readonly kubelets = new Map<string, Kubelet>();
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => (offered.has('v5.channel.k8s.io') ? 'v5.channel.k8s.io' : offered.has('v4.channel.k8s.io') ? 'v4.channel.k8s.io' : false),
  });
  private resourceVersion = 1;
  /** The most pods that existed at once. */
  peakPods = 0;
  /** While set, every request and exec upgrade is answered 503, as an API server behind its load balancer in an outage. */
  outage = false;
  /** Exec upgrades still to refuse with 503, as an API server under load does (`refuseExecs`). */
  private execRefusals = 0;
  url = '';
  /** The Docker network pods join; its gateway is an address of this machine that pods can reach. */
  networkName = '';
  gateway = '';

  constructor(readonly options: FakeKubeOptions = {}) {
    this.server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
  }

  async start(): Promise<this> {
    this.networkName = this.id;
    const network = await this.docker.createNetwork({ Name: this.networkName, Internal: true, Labels: { [FAKE_LABEL]: this.id } });
    this.gateway = (await network.inspect()).IPAM?.Config?.[0]?.Gateway ?? '';
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** Refuses the next `count` exec upgrades with 503 Service Unavailable: the command never reaches the pod. */
  refuseExecs(count: number): void {
    this.execRefusals = count;
  }

  /** A kubeconfig file pointing the real client at this fake (context "fake"). */
  kubeconfig(dir = mkdtempSync(path.join(os.tmpdir(), 'of-kubeconfig-'))): string {
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        // The fake serves plain HTTP; this client refuses http:// unless TLS verification is marked as skipped.
        clusters: [{ name: 'fake', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'tester', user: { token: this.token } }],
        contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'tester', namespace: 'default' } }],
        'current-context': 'fake',
      }),
    );
    return file;
  }

  list(resource: Resource, namespace?: string): KubernetesObject[] {
    return [...this.objects.entries()].filter(([k]) => k.startsWith(`${resource}/${namespace ?? ''}`)).map(([, o]) => o);
  }

  /** Replaces a pod's status as a kubelet would report it (and tells the watchers). */
  setPodStatus(namespace: string, name: string, status: V1PodStatus): void {
    const pod = this.objects.get(`pods/${namespace}/${name}`) as V1Pod | undefined;
    if (!pod) throw new Error(`no pod ${namespace}/${name}`);
    pod.status = status;
    this.emit('MODIFIED', 'pods', pod);
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.wss.close();
    await new Promise((resolve) => this.server.close(resolve));
    for (const key of this.kubelets.keys()) await this.stopKubelet(key);
    const leftovers = await this.docker.listContainers({ all: true, filters: { label: [`${FAKE_LABEL}=${this.id}`] } });
    await Promise.all(
      leftovers.map((c) =>
        this.docker
          .getContainer(c.Id)
          .remove({ force: true, v: true })
          .catch(() => undefined),
      ),
    );
    await this.docker
      .getNetwork(this.networkName)
      .remove()
      .catch(() => undefined);
  }

  // ── HTTP ──

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    this.requests.push(`${req.method} ${url.pathname}${url.searchParams.get('dryRun') ? ' (dry run)' : ''}`);
    try {
      if (this.outage) return status(res, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
      if (req.headers.authorization !== `Bearer ${this.token}`) return status(res, 401, 'Unauthorized', 'no valid bearer token');
      const m = ROUTE.exec(url.pathname);
      if (!m) return status(res, 404, 'NotFound', `the server could not find the requested resource (${url.pathname})`);
      const [, namespace, resource, name, sub] = m as unknown as [string, string, Resource, string | undefined, string | undefined];
      const key = (n: string) => `${resource}/${namespace}/${n}`;
      if (req.method === 'POST' && !name) return await this.create(req, res, namespace, resource, url.searchParams.has('dryRun'));
      if (req.method === 'GET' && !name && url.searchParams.get('watch') === 'true') return this.watch(res, namespace, resource, url.searchParams);
      if (req.method === 'GET' && !name) {
        const items = this.list(resource, `${namespace}/`).filter(selector(url.searchParams));
        return json(res, 200, {
          kind: `${KINDS[resource].kind}List`,
          apiVersion: KINDS[resource].apiVersion,
          metadata: { resourceVersion: String(this.resourceVersion) },
          items,
        });
      }
      const object = name ? this.objects.get(key(name)) : undefined;
      if (!object) return status(res, 404, 'NotFound', `${resource} "${name}" not found`);
      if (req.method === 'GET' && sub === 'log') {
        const kubelet = this.kubelets.get(key(name!));
        const logs = kubelet?.container ? ((await kubelet.container.logs({ stdout: true, stderr: true })) as unknown as Buffer) : Buffer.alloc(0);
        res.writeHead(200, { 'content-type': 'text/plain' });
        return void res.end(demuxed(logs));
      }
      if (req.method === 'GET') return json(res, 200, object);
      if (req.method === 'DELETE') {
        if (this.options.forbiddenNamespaces?.includes(namespace))
          return status(res, 403, 'Forbidden', `cannot delete ${resource} in the namespace "${namespace}"`);
        await this.delete(key(name!));
        return resource === 'pods'
          ? json(res, 200, object)
          : json(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: resource, uid: object.metadata?.uid } });
      }
      return status(res, 405, 'MethodNotAllowed', `${req.method} is not supported by this fake`);
    } catch (err) {
      status(res, 500, 'InternalError', (err as Error).message);
    }
  }

  private async create(req: http.IncomingMessage, res: http.ServerResponse, namespace: string, resource: Resource, dryRun: boolean): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as KubernetesObject;
    if (this.options.forbiddenNamespaces?.includes(namespace)) {
      return status(
        res,
        403,
        'Forbidden',
        `${resource} is forbidden: User "tester" cannot create resource "${resource}" in API group "" in the namespace "${namespace}"`,
      );
    }
    try {
      validateManifest(body);
    } catch (err) {
      return status(res, 422, 'Invalid', `${KINDS[resource].kind} "${body.metadata?.name}" is invalid: ${(err as Error).message}`);
    }
    const name = body.metadata?.name;
    if (!name) return status(res, 422, 'Invalid', 'metadata.name: Required value');
    const key = `${resource}/${namespace}/${name}`;
    if (this.objects.has(key)) return status(res, 409, 'AlreadyExists', `${resource} "${name}" already exists`);
    const object = {
      ...body,
      metadata: { ...body.metadata, namespace, uid: randomUUID(), resourceVersion: String(++this.resourceVersion), creationTimestamp: new Date() },
    } as KubernetesObject;
    if (dryRun) return json(res, 201, object);
    if (resource === 'pods') (object as V1Pod).status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] };
    this.objects.set(key, object);
    this.peakPods = Math.max(this.peakPods, this.list('pods').length);
    this.emit('ADDED', resource, object);
    json(res, 201, object);
    if (resource === 'pods') void this.runPod(key, object as V1Pod);
  }

  private watch(res: http.ServerResponse, namespace: string, resource: Resource, params: URLSearchParams): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    const watcher: Watcher = { namespace, resource, matches: selector(params), res };
    for (const o of this.list(resource, `${namespace}/`).filter(watcher.matches)) res.write(`${JSON.stringify({ type: 'ADDED', object: o })}\n`);
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
  }

  private emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', resource: Resource, object: KubernetesObject): void {
    if (type !== 'DELETED') object.metadata!.resourceVersion = String(++this.resourceVersion);
    for (const w of this.watchers) {
      if (w.resource === resource && w.namespace === object.metadata?.namespace && w.matches(object)) w.res.write(`${JSON.stringify({ type, object })}\n`);
    }
  }

  /** Deletes an object and, as the garbage collector does, everything whose ownerReferences name it. */
  private async delete(key: string): Promise<void> {
    const object = this.objects.get(key);
    if (!object) return;
    this.objects.delete(key);
    const resource = key.split('/')[0] as Resource;
    if (resource === 'pods') await this.stopKubelet(key);
    this.emit('DELETED', resource, object);
    const uid = object.metadata?.uid;
    for (const [k, o] of [...this.objects.entries()]) {
      if (o.metadata?.ownerReferences?.some((r) => r.uid === uid)) await this.delete(k);
    }
  }

  // ── the kubelet: pods as Docker containers ──

  private async runPod(key: string, pod: V1Pod): Promise<void> {
    const kubelet: Kubelet = { volumes: [], stopped: false };
    this.kubelets.set(key, kubelet);
    const override = this.options.podStatusOverride?.(pod);
    if (override) return this.update(key, override);
    const spec = pod.spec!;
    const main = spec.containers[0]!;
    this.update(key, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] });
    try {
      for (const c of [...(spec.initContainers ?? []), main]) {
        if (!(await this.imageExists(c.image!))) {
          this.update(key, waiting(pod, c, 'ErrImagePull', `failed to pull and unpack image "${c.image}": not found`));
          await new Promise((r) => setTimeout(r, 200));
          if (!kubelet.stopped) this.update(key, waiting(pod, c, 'ImagePullBackOff', `Back-off pulling image "${c.image}"`));
          return;
        }
      }
      if (spec.volumes?.some((v) => v.image)) {
        this.update(key, waiting(pod, main, 'CreateContainerConfigError', 'image volumes are not supported by this fake kubelet'));
        return;
      }
      for (const v of spec.volumes ?? []) {
        if (v.emptyDir && v.emptyDir.medium !== 'Memory') {
          const name = `${this.id}-${pod.metadata!.uid}-${v.name}`;
          await this.docker.createVolume({ Name: name, Labels: { [FAKE_LABEL]: this.id } });
          kubelet.volumes.push(name);
        }
      }
      for (const init of spec.initContainers ?? []) {
        const c = await this.createContainer(pod, init, kubelet);
        await c.start();
        const { StatusCode } = (await c.wait()) as { StatusCode: number };
        await c.remove({ force: true }).catch(() => undefined);
        if (StatusCode !== 0) {
          this.update(key, {
            phase: 'Failed',
            initContainerStatuses: [
              {
                name: init.name,
                image: init.image!,
                imageID: '',
                ready: false,
                restartCount: 0,
                state: { terminated: { exitCode: StatusCode, reason: 'Error' } },
              },
            ],
          });
          return;
        }
      }
      if (kubelet.stopped) return;
      const container = await this.createContainer(pod, main, kubelet);
      kubelet.container = container;
      await container.start();
      if (kubelet.stopped) return;
      const startedAt = new Date();
      const ready = { type: 'Ready', status: 'True' };
      this.update(key, {
        phase: 'Running',
        startTime: startedAt,
        conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, { type: 'ContainersReady', status: 'True' }, ready],
        containerStatuses: [
          { name: main.name, image: main.image!, imageID: main.image!, ready: true, started: true, restartCount: 0, state: { running: { startedAt } } },
        ],
      });
      if (spec.activeDeadlineSeconds) {
        kubelet.deadline = setTimeout(() => {
          if (kubelet.stopped) return;
          kubelet.stopped = true;
          this.update(key, { phase: 'Failed', reason: 'DeadlineExceeded', message: `Pod was active on the node longer than the specified deadline` });
          void container.remove({ force: true, v: true }).catch(() => undefined);
        }, spec.activeDeadlineSeconds * 1000);
      }
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      if (kubelet.stopped) return;
      const info = await container.inspect().catch(() => undefined);
      const reason = info?.State?.OOMKilled ? 'OOMKilled' : StatusCode === 0 ? 'Completed' : 'Error';
      this.update(key, {
        phase: StatusCode === 0 ? 'Succeeded' : 'Failed',
        containerStatuses: [
          { name: main.name, image: main.image!, imageID: main.image!, ready: false, restartCount: 0, state: { terminated: { exitCode: StatusCode, reason } } },
        ],
      });
    } catch (err) {
      if (!kubelet.stopped) this.update(key, waiting(pod, main, 'CreateContainerError', (err as Error).message));
    }
  }

  private async createContainer(pod: V1Pod, c: V1Container, kubelet: Kubelet): Promise<Docker.Container> {
    const spec = pod.spec!;
    const memory = parseQuantity(String(c.resources?.limits?.memory ?? '0')) ?? 0;
    const cpu = parseQuantity(String(c.resources?.limits?.cpu ?? '0')) ?? 0;
    const mounts = (c.volumeMounts ?? []).flatMap((m) => {
      const volume = kubelet.volumes.find((v) => v.endsWith(`-${m.name}`));
      return volume ? [{ Type: 'volume' as const, Source: volume, Target: m.mountPath, ReadOnly: !!m.readOnly }] : [];
    });
    const user = c.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
    return this.docker.createContainer({
      Image: c.image,
      Cmd: [...(c.command ?? []), ...(c.args ?? [])],
      WorkingDir: c.workingDir,
      Env: (c.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`),
      User: user !== undefined ? String(user) : undefined,
      Labels: { [FAKE_LABEL]: this.id, 'openforge.fake-kube.pod': pod.metadata!.name! },
      HostConfig: {
        Init: true, // the pod's pause container reaps zombies (shareProcessNamespace)
        Memory: memory || undefined,
        MemorySwap: memory || undefined,
        NanoCpus: cpu ? Math.round(cpu * 1e9) : undefined,
        NetworkMode: this.networkName,
        CapDrop: c.securityContext?.capabilities?.drop,
        CapAdd: c.securityContext?.capabilities?.add,
        SecurityOpt: c.securityContext?.allowPrivilegeEscalation === false ? ['no-new-privileges'] : [],
        ShmSize: 64 * 1024 * 1024,
        Mounts: mounts,
      },
    });
  }

  private update(key: string, status: V1PodStatus): void {
    const pod = this.objects.get(key) as V1Pod | undefined;
    if (!pod) return;
    pod.status = status;
    this.emit('MODIFIED', 'pods', pod);
  }

  private async stopKubelet(key: string): Promise<void> {
    const kubelet = this.kubelets.get(key);
    if (!kubelet) return;
    this.kubelets.delete(key);
    kubelet.stopped = true;
    if (kubelet.deadline) clearTimeout(kubelet.deadline);
    await kubelet.container?.remove({ force: true, v: true }).catch(() => undefined);
    for (const v of kubelet.volumes)
      await this.docker
        .getVolume(v)
        .remove()
        .catch(() => undefined);
  }

  private async imageExists(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch {
      return false;
    }
  }

  // ── exec over WebSocket ──

  private async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    this.requests.push(`EXEC ${url.pathname} ${url.searchParams.getAll('command').join(' ')}`);
    const refuse = (code: number, message: string) => {
      socket.end(
        `HTTP/1.1 ${code} ${http.STATUS_CODES[code]}\r\ncontent-type: application/json\r\n\r\n${JSON.stringify({ kind: 'Status', status: 'Failure', code, message })}`,
      );
    };
    if (req.headers.authorization !== `Bearer ${this.token}`) return refuse(401, 'Unauthorized');
    const m = ROUTE.exec(url.pathname);
    if (!m || m[2] !== 'pods' || m[4] !== 'exec') return refuse(404, 'not found');
    if (this.outage || this.execRefusals > 0) {
      this.execRefusals = Math.max(0, this.execRefusals - 1);
      return refuse(503, 'the server is currently unable to handle the request');
    }
    const key = `pods/${m[1]}/${m[3]}`;
    const kubelet = this.kubelets.get(key);
    const pod = this.objects.get(key) as V1Pod | undefined;
    if (!pod) return refuse(404, `pods "${m[3]}" not found`);
    if (!kubelet?.container || kubelet.stopped || pod.status?.phase !== 'Running')
      return refuse(400, `container not found ("${url.searchParams.get('container')}")`);
    const command = url.searchParams.getAll('command');
    const withStdin = url.searchParams.get('stdin') === 'true';
    const exec = await kubelet.container.exec({ Cmd: command, AttachStdin: withStdin, AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: withStdin });
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const channel = (n: number) =>
        new Writable({
          write(chunk: Buffer, _enc, done) {
            ws.send(Buffer.concat([Buffer.from([n]), chunk]), done);
          },
        });
      const stdout = channel(1);
      const stderr = channel(2);
      this.docker.modem.demuxStream(stream, stdout, stderr);
      ws.on('message', (data: Buffer) => {
        if (data[0] === 0) stream.write(data.subarray(1));
        else if (data[0] === 255 && data[1] === 0) stream.end(); // v5: the client closed stdin
      });
      ws.on('close', () => stream.destroy());
      stream.on('end', async () => {
        // A pod that died under the exec drops the connection without a status, as the API server does.
        const running = (await kubelet.container!.inspect().catch(() => undefined))?.State?.Running;
        if (kubelet.stopped || !running || ws.readyState !== ws.OPEN) return ws.terminate();
        const { ExitCode } = await exec.inspect();
        const code = ExitCode ?? 1;
        const result =
          code === 0
            ? { metadata: {}, status: 'Success' }
            : {
                metadata: {},
                status: 'Failure',
                message: `command terminated with non-zero exit code: exit status ${code}`,
                reason: 'NonZeroExitCode',
                details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
              };
        ws.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(result))]), () => ws.close(1000));
      });
    });
  }
}

function waiting(pod: V1Pod, c: V1Container, reason: string, message: string): V1PodStatus {
  const isInit = pod.spec?.initContainers?.some((i) => i.name === c.name);
  const entry = { name: c.name, image: c.image!, imageID: '', ready: false, restartCount: 0, state: { waiting: { reason, message } } };
  return {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'True' }],
    ...(isInit ? { initContainerStatuses: [entry] } : { containerStatuses: [entry] }),
  };
}

/** labelSelector (k=v, comma-separated) and fieldSelector (metadata.name / metadata.namespace). */
function selector(params: URLSearchParams): (o: KubernetesObject) => boolean {
  const pairs = (text: string | null) => (text ? text.split(',').map((p) => p.split(/==?/) as [string, string]) : []);
  const labels = pairs(params.get('labelSelector'));
  const fields = pairs(params.get('fieldSelector'));
  return (o) =>
    labels.every(([k, v]) => o.metadata?.labels?.[k] === v) &&
    fields.every(([k, v]) => (k === 'metadata.name' ? o.metadata?.name === v : k === 'metadata.namespace' ? o.metadata?.namespace === v : false));
}

function json(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function status(res: http.ServerResponse, code: number, reason: string, message: string): void {
  json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

/** Docker's multiplexed log frames to plain text. */
function demuxed(buf: Buffer): string {
  const out: Buffer[] = [];
  for (let i = 0; i + 8 <= buf.length;) {
    const size = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(out).toString('utf8');
}
