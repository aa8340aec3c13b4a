// What the browser and desktop env benches share: the engine, the image, a run network and container specs,
// quantiles, the load average, the printed table, and the in-container helper that POSTs to the env server.
import { loadavg } from 'node:os';
import { DockerBackend } from '../../dist/sandbox/docker/backend.js';
import { ImageBuilder } from '../../dist/sandbox/docker/images.js';

/** The p-quantile of xs (nearest rank). */
export const quantile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
export const row = (name, xs) => ({ name, p50: quantile(xs, 0.5), p95: quantile(xs, 0.95) });
const loadText = (l) => l.map((v) => v.toFixed(2)).join(' ');

/**
 * In-container JavaScript: `post(route, body)` to the env server (with the rollout's token when
 * OPENFORGE_ENV_TOKEN is set), the answer's JSON or an error naming the route.
 */
export const IN_CONTAINER_POST = `
const token = process.env.OPENFORGE_ENV_TOKEN;
const post = async (route, body) => {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: 'Bearer ' + token } : {}) };
  const res = await fetch('http://127.0.0.1:7000' + route, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(route + ' ' + res.status + ' ' + (await res.text()));
  return res.json();
};
`;

/**
 * The engine, the image of `kind` ('browser' or 'desktop', built when missing), a run network without a route out,
 * and `spec(name)` for a container of that run; `close()` removes the run's containers.
 */
export async function guiBench(kind) {
  const backend = new DockerBackend();
  await backend.check();
  const builder = new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA, onLog: (l) => process.stderr.write(`${l}\n`) });
  const image = kind === 'desktop' ? await builder.ensureDesktop() : await builder.ensureBrowser();
  const runId = `bench-${kind}-${process.pid}`;
  const network = await backend.prepareNetwork(runId, 'none');
  const spec = (name) => ({ runId, rolloutId: `${runId}-${name}`, image, resources: { cpus: 2, memoryMb: 2048, pids: 2048 }, network, lifetimeSec: 1800 });
  return { backend, image, spec, close: () => backend.removeRun(runId) };
}

/** The load average before a measurement; `print` writes the header line, the rows, and returns the load before and after. */
export function loadWatch() {
  const before = loadavg();
  return {
    print() {
      const after = loadavg();
      console.log(`  load average (1/5/15 min): before ${loadText(before)}, after ${loadText(after)}`);
      return { before, after };
    },
  };
}

export function printRows(rows) {
  const width = Math.max(...rows.map((r) => r.name.length)) + 2;
  for (const r of rows) console.log(`  ${r.name.padEnd(width)} p50 ${r.p50.toFixed(1).padStart(7)} ms   p95 ${r.p95.toFixed(1).padStart(7)} ms`);
}

/** The p50 of one field across the steps' server-side timings, e.g. settle_ms. */
export const serverP50 = (timings, key) =>
  quantile(
    timings.map((t) => t[key]),
    0.5,
  ).toFixed(1);
