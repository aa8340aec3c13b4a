import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { RunConfig } from '../config/run.js';
import { SIM_JUDGE, simJudgeAnswer } from '../sim/judge.js';
import { UserError, errorMessage } from '../util/errors.js';

type JudgeConfig = NonNullable<RunConfig['judge']>;

/** What a grader in a rollout's verifier phase is given to reach the judge (and nothing else of it). */
export interface JudgeAccess {
  env: Record<string, string>;
  close(): void;
}

const MAX_BODY = 8 * 2 ** 20;

/**
 * The run's judge endpoint: an OpenAI-compatible `/j/<secret>/v1/chat/completions` on the address the
 * rollout containers reach the proxy at. A secret is opened for one rollout's verifier phase and closed
 * after it, so only that phase's grader reaches it (the agent's processes are gone by then). The judge's
 * API key stays in this process: read from the environment variable run.yaml names, sent upstream only.
 * Every call is appended to the rollout's judge/calls.jsonl, never to the store's policy calls.
 */
export class JudgeEndpoint {
  private readonly grants = new Map<string, { rolloutId: string; log: string }>();
  private constructor(
    private readonly server: http.Server,
    private readonly config: JudgeConfig,
    private readonly apiKey: string | undefined,
    readonly host: string,
  ) {}

  static async start(config: JudgeConfig, host: string): Promise<JudgeEndpoint> {
    let apiKey: string | undefined;
    if (config.api_key_env) {
      apiKey = process.env[config.api_key_env];
      if (!apiKey)
        throw new UserError(
          `judge.api_key_env names ${config.api_key_env}, which is not set`,
          `export ${config.api_key_env}=<the judge's API key> before the run`,
        );
    }
    const server = http.createServer();
    const endpoint = new JudgeEndpoint(server, config, apiKey, host);
    server.on('request', (req, res) => void endpoint.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    return endpoint;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Opens the judge for one rollout's verifier phase; its calls are logged into `artifactsDir/judge/`. */
  open(rolloutId: string, artifactsDir: string): JudgeAccess {
    const secret = randomBytes(24).toString('hex');
    this.grants.set(secret, { rolloutId, log: path.join(artifactsDir, 'judge', 'calls.jsonl') });
    return {
      env: { OPENFORGE_JUDGE_URL: `http://${this.host}:${this.port}/j/${secret}/v1`, OPENFORGE_JUDGE_MODEL: this.config.model },
      close: () => this.grants.delete(secret),
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const m = /^\/j\/([0-9a-f]{48})\/v1\/chat\/completions$/.exec(req.url ?? '');
    const grant = m ? this.grants.get(m[1]!) : undefined;
    if (!grant || req.method !== 'POST') return send(res, grant ? 405 : 404, { error: { message: 'no judge here', type: 'not_found' } });
    const started = Date.now();
    let request: Record<string, unknown>;
    try {
      request = JSON.parse((await readBody(req)).toString('utf8')) as Record<string, unknown>;
    } catch (err) {
      return send(res, 400, { error: { message: `not a JSON chat request: ${errorMessage(err)}`, type: 'invalid_request_error' } });
    }
    const forced = { ...request, model: this.config.model, stream: false, ...definedOnly(this.config.sampling) };
    let status = 200;
    let answer: unknown;
    try {
      if (this.config.upstream === SIM_JUDGE) answer = simJudgeAnswer(forced, this.config.model);
      else {
        const upstream = await fetch(`${this.config.upstream.replace(/\/$/, '')}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
          body: JSON.stringify(forced),
          signal: AbortSignal.timeout(300_000),
        });
        status = upstream.status;
        answer = await upstream.json().catch(() => ({ error: { message: `the judge upstream answered ${upstream.status} without JSON` } }));
      }
    } catch (err) {
      status = 502;
      answer = { error: { message: `the judge upstream failed: ${errorMessage(err)}`, type: 'upstream_error' } };
    }
    mkdirSync(path.dirname(grant.log), { recursive: true });
    appendFileSync(
      grant.log,
      JSON.stringify({
        rollout_id: grant.rolloutId,
        upstream: this.config.upstream,
        status,
        started_at: started,
        duration_ms: Date.now() - started,
        request: forced,
        response: answer,
      }) + '\n',
    );
    send(res, status, answer);
  }
}

function definedOnly(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy(new Error('request over 8 MiB'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
