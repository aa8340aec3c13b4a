// The browser-basic site kit: a tiny dependency-free web server for one task site.
// It holds the site's state in memory, serves it as JSON at GET /api/state (what the task's evaluator
// reads) and restores the initial state on POST /api/reset. Pages are rendered on the server from
// the task's routes; the shared stylesheet and client helper are served under /kit/.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const KIT_DIR = path.dirname(fileURLToPath(import.meta.url));
const KIT_FILES = {
  '/kit/kit.css': { file: 'kit.css', type: 'text/css; charset=utf-8' },
  '/kit/kit.js': { file: 'kit.js', type: 'text/javascript; charset=utf-8' },
};

/** HTML that is already safe: returned by `html` and `raw`, inserted without escaping. */
class SafeHtml {
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

export function raw(text) {
  return new SafeHtml(String(text));
}

function render(value) {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (value instanceof SafeHtml) return value.text;
  return escapeHtml(value);
}

/** Tagged template: interpolated values are escaped unless they are SafeHtml; arrays are joined. */
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** A whole page in the kit's layout: a fixed-height top bar with the site's name, then the content. */
export function page({ site, title, body, nav = [], style = '', script = '' }) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title} · ${site}</title>
<link rel="stylesheet" href="/kit/kit.css">
<script src="/kit/kit.js"></script>
${style ? raw(`<style>${style}</style>`) : ''}
</head>
<body>
<header class="topbar"><a class="brand" href="/">${site}</a><nav>${nav.map((n) => html`<a href="${n.href}">${n.label}</a>`)}</nav></header>
<main>
${body}
</main>
${script ? raw(`<script>\n${script}\n</script>`) : ''}
</body>
</html>
`;
}

/** Thrown by a route for bad input: answered with 400 and the message, the server keeps serving. */
export class BadRequest extends Error {}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new BadRequest(`request body is not valid JSON: ${err.message}`);
    }
  }
  // Forms post application/x-www-form-urlencoded; a field given twice becomes an array.
  const form = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key in form) form[key] = [].concat(form[key], value);
    else form[key] = value;
  }
  return form;
}

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * Starts a site. `routes` maps "METHOD /path" to a handler `({ state, query, body, cookies }) => result`,
 * where result is SafeHtml (a page), `{ redirect, setCookie? }`, `{ json, status? }` or `{ status, text }`.
 * Handlers change `state` in place; it is what GET /api/state returns.
 */
export function startSite({ name, initialState, routes, port = Number(process.env.SITE_PORT ?? 8000) }) {
  const holder = { state: structuredClone(initialState) };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const key = `${req.method} ${url.pathname}`;
    try {
      if (key === 'GET /api/state') return send(res, 200, 'application/json', JSON.stringify(holder.state, null, 2));
      if (key === 'POST /api/reset') {
        holder.state = structuredClone(initialState);
        return send(res, 200, 'application/json', '{"ok":true}');
      }
      const kitFile = req.method === 'GET' && KIT_FILES[url.pathname];
      if (kitFile) return send(res, 200, kitFile.type, readFileSync(path.join(KIT_DIR, kitFile.file)));
      const handler = routes[key];
      if (!handler) {
        const known = Object.keys(routes).filter((r) => r.endsWith(` ${url.pathname}`));
        const why = known.length ? `${req.method} is not allowed here (use ${known.map((k) => k.split(' ')[0]).join(' or ')})` : `no page at ${url.pathname}`;
        return send(res, known.length ? 405 : 404, 'text/html; charset=utf-8', String(page({ site: name, title: 'Not found', body: html`<section class="card"><h1>Not found</h1><p>${why}</p><p><a href="/">Back to the start page</a></p></section>` })));
      }
      const body = req.method === 'GET' ? {} : await readBody(req);
      const cookies = Object.fromEntries((req.headers.cookie ?? '').split(';').map((c) => c.trim().split('=')).filter((kv) => kv.length === 2));
      const result = await handler({ state: holder.state, query: url.searchParams, body, cookies });
      if (result instanceof SafeHtml) return send(res, 200, 'text/html; charset=utf-8', result.text);
      if (result && typeof result.redirect === 'string') {
        res.writeHead(303, { location: result.redirect, 'cache-control': 'no-store', ...(result.setCookie ? { 'set-cookie': result.setCookie } : {}) });
        return res.end();
      }
      if (result && 'json' in result) return send(res, result.status ?? 200, 'application/json', JSON.stringify(result.json));
      return send(res, result?.status ?? 200, 'text/plain; charset=utf-8', result?.text ?? '');
    } catch (err) {
      const status = err instanceof BadRequest ? 400 : 500;
      if (status === 500) console.error(`${key} failed:`, err);
      return send(res, status, 'text/plain; charset=utf-8', `${status === 400 ? 'bad request' : 'server error'}: ${err.message}`);
    }
  });
  server.listen(port, '0.0.0.0', () => console.log(`${name} listening on http://0.0.0.0:${port}`));
  return server;
}
