import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError, errorMessage } from '../util/errors.js';

/** The upstreams a run or a service job sends its policy calls to. */
export interface UpstreamSet {
  upstream: string;
  replicas?: string[] | undefined;
  /** The model name forced onto every call: each server must serve it. */
  name: string;
  kind: 'vllm' | 'sglang' | 'openai-compatible';
}

/** How long one server may take to answer `GET …/models` before it counts as not answering. */
export const PREFLIGHT_TIMEOUT_MS = 3_000;

/** A `sim:` upstream runs in this process: there is nothing to reach. */
export const isSimulated = (upstream: string) => upstream.startsWith('sim:');

/**
 * Why one server cannot serve the policy's calls, or undefined when it can: it answers `GET <url>/models`
 * and lists `name` among its models. An OpenAI-compatible server without a models route is taken as reachable.
 */
export async function upstreamProblem(url: string, name: string, kind: UpstreamSet['kind'], timeoutMs = PREFLIGHT_TIMEOUT_MS): Promise<string | undefined> {
  const modelsUrl = `${url.replace(/\/+$/, '')}/models`;
  // node:http rather than fetch, which refuses ports on its "bad port" list (6000, 6665…) that a server may use
  const res = await getText(modelsUrl, timeoutMs);
  if (typeof res === 'string') return res;
  const { text } = res;
  if (res.status === 404 && kind === 'openai-compatible') return undefined;
  if (res.status < 200 || res.status >= 300) return `GET ${modelsUrl} answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  let ids: string[];
  try {
    const body = JSON.parse(text) as { data?: { id?: unknown }[] };
    ids = (body.data ?? []).map((m) => String(m.id));
  } catch {
    return `GET ${modelsUrl} answered something other than a JSON model list`;
  }
  if (!ids.includes(name)) return `it serves ${ids.length ? ids.map((id) => `"${id}"`).join(', ') : 'no model'}, not "${name}"`;
  return undefined;
}

/** GET `url` within `timeoutMs`: its status and body, or what went wrong. */
function getText(url: string, timeoutMs: number): Promise<{ status: number; text: string } | string> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve(`${url} is not a URL`);
      return;
    }
    const get = target.protocol === 'https:' ? https.get : http.get;
    const req = get(target, { headers: { accept: 'application/json' }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => resolve(`GET ${url} failed: ${errorMessage(err)}`));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(`no answer to GET ${url} within ${timeoutMs / 1000} s`);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(`GET ${url} failed: ${err.code ?? errorMessage(err)}`));
  });
}

/** Each server's problem, in the order upstream, replicas; empty when all can serve. */
export async function upstreamProblems(set: UpstreamSet, timeoutMs = PREFLIGHT_TIMEOUT_MS): Promise<{ url: string; problem: string }[]> {
  if (isSimulated(set.upstream)) return [];
  const urls = [set.upstream, ...(set.replicas ?? [])];
  const problems = await Promise.all(urls.map(async (url) => ({ url, problem: await upstreamProblem(url, set.name, set.kind, timeoutMs) })));
  return problems.filter((p): p is { url: string; problem: string } => p.problem !== undefined);
}

/**
 * Before anything starts: every upstream replica answers and serves the model, or a `UserError` names the
 * first that does not. `where` names the setting in the message (`model.upstream`, the request's `upstream`).
 */
export async function checkUpstreams(set: UpstreamSet, where: { upstream: string; replicas: string; name: string }): Promise<void> {
  const [first, ...more] = await upstreamProblems(set);
  if (!first) return;
  const role = first.url === set.upstream ? where.upstream : where.replicas;
  throw new UpstreamUnavailableError(
    `the upstream ${first.url} (${role}) cannot serve the policy: ${first.problem}${more.length ? ` (and ${more.length} more replica${more.length > 1 ? 's' : ''})` : ''}`,
    `start the inference server, or point ${where.upstream} at one that serves "${set.name}" (${where.name} sets the model name)`,
  );
}

/** An upstream that cannot serve: a user error of the run, a 502 of the rollout service. */
export class UpstreamUnavailableError extends UserError {
  readonly statusCode = 502;
}

/**
 * Waits until every upstream serves again (checked each second), up to `waitMs`; false when one still
 * does not. Before a rollout that failed at the upstream is run again.
 */
export async function waitForUpstreams(set: UpstreamSet, waitMs: number, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if ((await upstreamProblems(set)).length === 0) return true;
    if (Date.now() >= deadline || signal.aborted) return false;
    try {
      await sleep(1_000, undefined, { signal });
    } catch {
      return false;
    }
  }
}
