import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { forkRollout, planFork } from '../rollout/fork.js';
import { planReplay, replayRollout } from '../rollout/replay.js';
import { clientErrorAnswer } from '../util/client-error.js';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { readArtifact } from './artifacts.js';
import { JobRunner } from './jobs.js';
import { artifactsDir, type RunFolder } from './run-folder.js';
import { behaviourView, callView, compareView, rolloutView, runsView, runView } from './views.js';

export interface InspectorOptions {
  folder: RunFolder;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Passed to image builds when a replay or fork runs. */
  extraCaFile?: string;
  /** What every /api request must carry (`Authorization: Bearer`); a random one per launch by default. */
  token?: string;
}

export interface Inspector {
  /** The page, with the launch's token in its query (the page sends it with every API request). */
  url: string;
  /** The server's own origin, e.g. http://127.0.0.1:4321. */
  origin: string;
  token: string;
  app: FastifyInstance;
  jobs: JobRunner;
  close(): Promise<void>;
}

const ASSETS: Record<string, string> = { 'app.js': 'text/javascript', 'style.css': 'text/css' };

function error(message: string) {
  return { error: { message } };
}

/**
 * The web inspector: a JSON API over one output folder's store and artifacts, and a small front end
 * (plain HTML, one JS module, one CSS file from src/inspector/assets) that renders it and polls while
 * rollouts run. Replay and fork run in this process, one at a time.
 */
export function buildInspectorApp(options: InspectorOptions): { app: FastifyInstance; jobs: JobRunner; token: string } {
  const { folder } = options;
  const jobs = new JobRunner();
  const token = options.token ?? randomBytes(18).toString('base64url');
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024, clientErrorHandler: clientErrorAnswer((message) => error(message)) });
  app.addHook('onRequest', visitorCheck(options.host ?? '127.0.0.1', token));
  const assetsDir = path.join(packageRoot(), 'src', 'inspector', 'assets');

  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const status = err instanceof UserError ? 400 : err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
    void reply.code(status).send(error(status === 400 && err.name === 'SyntaxError' ? `malformed JSON body: ${err.message}` : err.message));
  });
  app.setNotFoundHandler((req, reply) => void reply.code(404).send(error(`no route ${req.method} ${req.url}`)));

  const page = () => readFileSync(path.join(assetsDir, 'index.html'), 'utf8');
  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(page()));
  app.get<{ Params: { name: string } }>('/assets/:name', async (req, reply) => {
    const type = ASSETS[req.params.name];
    if (!type) return reply.code(404).send(error(`no asset ${req.params.name}`));
    return reply
      .type(`${type}; charset=utf-8`)
      .header('cache-control', 'no-cache')
      .send(readFileSync(path.join(assetsDir, req.params.name), 'utf8'));
  });

  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send());
  app.get('/api/runs', async () => runsView(folder));
  app.get<{ Params: { id: string } }>('/api/runs/:id', async (req, reply) => {
    return (await runView(folder, req.params.id)) ?? reply.code(404).send(error(`no run ${req.params.id} in ${folder.dir}`));
  });
  app.get<{ Params: { id: string } }>('/api/runs/:id/behaviour', async (req, reply) => {
    return (await behaviourView(folder, req.params.id)) ?? reply.code(404).send(error(`no run ${req.params.id} in ${folder.dir}`));
  });
  app.get<{ Querystring: { a?: string; b?: string } }>('/api/compare', async (req, reply) => {
    const { a, b } = req.query;
    if (!a || !b) return reply.code(400).send(error('compare needs two runs: /api/compare?a=<run id>&b=<run id>'));
    const view = await compareView(folder, a, b);
    return typeof view === 'string' ? reply.code(404).send(error(view)) : view;
  });
  app.get<{ Params: { id: string } }>('/api/rollouts/:id', async (req, reply) => {
    return (await rolloutView(folder, req.params.id)) ?? reply.code(404).send(error(`no rollout ${req.params.id} in ${folder.dir}`));
  });
  app.get<{ Params: { id: string; seq: string } }>('/api/rollouts/:id/calls/:seq', async (req, reply) => {
    const seq = Number(req.params.seq);
    if (!Number.isInteger(seq) || seq < 1) return reply.code(400).send(error(`call number "${req.params.seq}": a whole number from 1`));
    return (await callView(folder, req.params.id, seq)) ?? reply.code(404).send(error(`rollout ${req.params.id} has no call ${seq}`));
  });
  app.get<{ Params: { id: string }; Querystring: { path?: string } }>('/api/rollouts/:id/file', async (req, reply) => {
    const rollout = await folder.store.getRollout(req.params.id);
    if (!rollout) return reply.code(404).send(error(`no rollout ${req.params.id}`));
    const rel = req.query.path ?? '';
    const file = rel ? readArtifact(artifactsDir(folder.dir, rollout), rel) : undefined;
    return file ?? reply.code(404).send(error(`rollout ${req.params.id} has no artifact "${rel}"`));
  });

  app.post<{ Params: { id: string } }>('/api/rollouts/:id/replay', async (req, reply) => {
    const rolloutId = req.params.id;
    if (!(await folder.store.getRollout(rolloutId))) return reply.code(404).send(error(`no rollout ${rolloutId}`));
    if (jobs.busy) return reply.code(409).send(error(`a ${jobs.busy.kind} of ${jobs.busy.rolloutId} is running; wait for it to end`));
    await planReplay(folder.store, folder.dir, rolloutId); // a recording that cannot be played back is a 400 now, not a failed job later
    const job = jobs.start('replay', rolloutId, async () => {
      const r = await replayRollout(folder.dir, rolloutId, { extraCaFile: options.extraCaFile });
      return { rolloutId: r.replay.id, runId: r.replay.runId, identical: r.identical, differences: r.differences, reward: r.replay.reward };
    });
    return reply.code(202).send(job);
  });

  /** upstream: a sim: spec or an OpenAI-compatible base URL (…/v1); modelName: the model name sent to it. */
  const ForkBody = z.object({
    at: z.number().int().min(1),
    answer: z.string().min(1),
    upstream: z.string().min(1).optional(),
    modelName: z.string().min(1).optional(),
  });
  app.post<{ Params: { id: string } }>('/api/rollouts/:id/fork', async (req, reply) => {
    const rolloutId = req.params.id;
    const body = ForkBody.safeParse(req.body ?? {});
    if (!body.success) return reply.code(400).send(error(body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')));
    if (!(await folder.store.getRollout(rolloutId))) return reply.code(404).send(error(`no rollout ${rolloutId}`));
    if (jobs.busy) return reply.code(409).send(error(`a ${jobs.busy.kind} of ${jobs.busy.rolloutId} is running; wait for it to end`));
    const { at, answer, upstream, modelName } = body.data;
    await planFork(folder.store, folder.dir, rolloutId, at, answer, { upstream, modelName }); // a bad answer or upstream is a 400 now, not a failed job later
    const job = jobs.start('fork', rolloutId, async () => {
      const r = await forkRollout(folder.dir, rolloutId, { atSeq: at, answer, upstream, modelName, extraCaFile: options.extraCaFile });
      return { rolloutId: r.fork.id, runId: r.fork.runId, reward: r.fork.reward, errorType: r.fork.errorType };
    });
    return reply.code(202).send(job);
  });
  app.get<{ Params: { id: string } }>('/api/jobs/:id', async (req, reply) => jobs.get(req.params.id) ?? reply.code(404).send(error(`no job ${req.params.id}`)));
  return { app, jobs, token };
}

export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const { app, jobs, token } = buildInspectorApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    app,
    jobs,
    async close() {
      await app.close();
      await jobs.idle();
    },
  };
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Who may ask the inspector anything: a request whose Host names the address it serves on (a page of
 * another site reaching it through a rebound DNS name is refused), from its own page when a browser says
 * where it comes from (Origin), with the launch's token on every API route, and JSON on the routes that
 * start work (replay, fork). Served on every address (0.0.0.0), the token alone decides.
 */
function visitorCheck(host: string, token: string) {
  const names = new Set([...LOOPBACK_NAMES, host.includes(':') && !host.startsWith('[') ? `[${host}]` : host]);
  const anyHost = WILDCARD_HOSTS.has(host);
  const expected = Buffer.from(`Bearer ${token}`);
  const hostnameOf = (value: string) => {
    try {
      return new URL(value.includes('://') ? value : `http://${value}`).hostname;
    } catch {
      return '';
    }
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!anyHost && !names.has(hostnameOf(req.headers.host ?? ''))) {
      return reply.code(403).send(error(`this inspector answers requests for ${[...names].join(', ')}, not Host "${req.headers.host ?? ''}"`));
    }
    const origin = req.headers.origin;
    if (origin !== undefined && hostnameOf(origin) !== hostnameOf(req.headers.host ?? '')) {
      return reply.code(403).send(error(`requests from another site's pages (Origin ${origin}) are refused`));
    }
    if (!req.url.startsWith('/api/')) return;
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply.code(401).send(error('send the token this inspector printed at launch: Authorization: Bearer <token>, or open the URL it printed'));
    }
    if (req.method === 'POST' && !(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return reply.code(415).send(error('send a JSON body (content-type: application/json)'));
    }
  };
}
