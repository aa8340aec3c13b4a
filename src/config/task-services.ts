import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import { formatIssues } from './zod-errors.js';

/** The compose file of a Harbor task with services: `environment/docker-compose.yaml`. */
export const COMPOSE_FILES = ['docker-compose.yaml', 'docker-compose.yml'];
/** The compose service that is the task's own container (Harbor's name for it): built from environment/Dockerfile, not run beside it. */
export const MAIN_SERVICE = 'main';

/**
 * A mock service a task declares, run beside each of its rollout containers in that container's network
 * namespace: the rollout reaches it at 127.0.0.1 (and by its name), nothing else reaches it.
 */
export interface TaskService {
  name: string;
  /** A prebuilt image (`image:`), used when there is no `build:`. */
  image?: string;
  /** `build:` — a folder of the task's environment/ and its Dockerfile. */
  build?: { context: string; dockerfile: string };
  env: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
  healthcheck?: { test: string[]; intervalSec: number; timeoutSec: number; retries: number };
  /**
   * `x-openforge-audit`: a URL of the service (on 127.0.0.1) that answers its audit log, fetched after the
   * agent ends into /logs/services/<name>/audit.json for the grader, and kept with the rollout's artifacts.
   */
  auditUrl?: string;
}

const Words = z.union([z.string().transform((s) => ['/bin/sh', '-c', s]), z.array(z.string())]);
const Duration = z.union([z.number(), z.string()]).transform((d, ctx) => {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(d.trim());
  if (!m) {
    ctx.addIssue({ code: 'custom', message: `"${d}" is not a duration: write e.g. "2s", "500ms" or "1m"` });
    return z.NEVER;
  }
  return Number(m[1]) * ({ ms: 0.001, s: 1, m: 60 }[m[2] ?? 's'] ?? 1);
});

const ServiceSchema = z.looseObject({
  image: z.string().min(1).optional(),
  build: z.union([z.string(), z.looseObject({ context: z.string().default('.'), dockerfile: z.string().default('Dockerfile') })]).optional(),
  environment: z.union([z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])), z.array(z.string())]).optional(),
  command: Words.optional(),
  entrypoint: Words.optional(),
  healthcheck: z
    .looseObject({
      test: z.union([z.string().transform((s) => ['CMD-SHELL', s]), z.array(z.string())]),
      interval: Duration.default(1),
      timeout: Duration.default(5),
      retries: z.number().int().positive().default(30),
    })
    .optional(),
  'x-openforge-audit': z
    .string()
    .refine(
      (u) => URL.canParse(u) && ['127.0.0.1', 'localhost'].includes(new URL(u).hostname),
      'must be an http URL on 127.0.0.1, e.g. "http://127.0.0.1:9100/gmail/audit"',
    )
    .optional(),
});

const ComposeSchema = z.looseObject({ services: z.record(z.string(), ServiceSchema.nullable()).default({}) });

/** Compose keys that change how a service runs and that OpenForge does not honour: a task using them is refused, not run differently. */
const UNSUPPORTED_KEYS = ['volumes', 'network_mode', 'networks', 'privileged', 'cap_add', 'devices', 'pid', 'ipc'];

/** The services of a task's `environment/docker-compose.yaml` beside its own container (`main`); none without the file. */
export function loadTaskServices(environmentDir: string | undefined): TaskService[] {
  if (!environmentDir) return [];
  const file = COMPOSE_FILES.map((f) => path.join(environmentDir, f)).find((f) => existsSync(f));
  if (!file) return [];
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`${file}: invalid YAML: ${(err as Error).message}`);
  }
  const parsed = ComposeSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new UserError(formatIssues(file, parsed.error));
  const services: TaskService[] = [];
  for (const [name, svc] of Object.entries(parsed.data.services)) {
    if (name === MAIN_SERVICE) continue;
    if (!/^[a-z0-9][a-z0-9_.-]*$/i.test(name))
      throw new UserError(`${file}: service name "${name}" is not a host name`, 'use letters, digits, ".", "_" and "-"');
    const s = svc ?? {};
    const unsupported = UNSUPPORTED_KEYS.filter((k) => k in s);
    if (unsupported.length) {
      throw new UserError(
        `${file}: service ${name} sets ${unsupported.join(', ')}, which OpenForge does not give a task's services`,
        "a service runs in its rollout container's network namespace with its own filesystem: remove these keys (reach it at 127.0.0.1 or by its name)",
      );
    }
    if (!s.image && !s.build)
      throw new UserError(`${file}: service ${name} has neither image: nor build:`, 'name a prebuilt image or a build folder under environment/');
    const build = typeof s.build === 'string' ? { context: s.build, dockerfile: 'Dockerfile' } : s.build;
    if (build) {
      const context = path.resolve(environmentDir, build.context);
      if (context !== environmentDir && !context.startsWith(environmentDir + path.sep)) {
        throw new UserError(
          `${file}: service ${name} builds from ${build.context}, outside the task's environment/`,
          "keep a service's build folder under environment/",
        );
      }
      if (!existsSync(path.join(context, build.dockerfile)))
        throw new UserError(`${file}: service ${name}: ${path.join(context, build.dockerfile)} does not exist`);
    }
    services.push({
      name,
      ...(s.image ? { image: s.image } : {}),
      ...(build ? { build } : {}),
      env: environmentOf(s.environment),
      ...(s.command ? { command: s.command } : {}),
      ...(s.entrypoint ? { entrypoint: s.entrypoint } : {}),
      ...(s.healthcheck
        ? { healthcheck: { test: s.healthcheck.test, intervalSec: s.healthcheck.interval, timeoutSec: s.healthcheck.timeout, retries: s.healthcheck.retries } }
        : {}),
      ...(s['x-openforge-audit'] ? { auditUrl: s['x-openforge-audit'] } : {}),
    });
  }
  return services;
}

function environmentOf(env: Record<string, string | number | boolean> | string[] | undefined): Record<string, string> {
  if (!env) return {};
  if (!Array.isArray(env)) return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
  return Object.fromEntries(
    env.map((kv) => {
      const i = kv.indexOf('=');
      return i < 0 ? [kv, ''] : [kv.slice(0, i), kv.slice(i + 1)];
    }),
  );
}
