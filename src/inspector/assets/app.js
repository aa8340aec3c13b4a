// The inspector's front end: hash routes, DOM built with h(), data from /api. Polls while something runs.
const app = document.getElementById('app');
const where = document.getElementById('where');
const liveBadge = document.getElementById('live');
let pollTimer;
let routeToken = 0;

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

/** The launch's token, from the URL the inspector printed (?token=…); every API request carries it. */
const TOKEN = new URLSearchParams(location.search).get('token') ?? '';

async function api(path, init = {}) {
  const res = await fetch(path, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${TOKEN}` } });
  const body = await res.json().catch(() => ({ error: { message: `HTTP ${res.status}` } }));
  if (!res.ok) throw Object.assign(new Error(body.error?.message ?? `HTTP ${res.status}`), { status: res.status });
  return body;
}

const fmt = (x, d = 2) => (x === null || x === undefined ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(d));
const ms = (x) => (x === null || x === undefined ? '–' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);
const time = (t) => (t ? new Date(t).toLocaleTimeString() : '–');
const enc = encodeURIComponent;
const isLive = (status) => status === 'running' || status === 'pending';
const rewardCell = (r) => h('span', { class: r === null ? 'muted' : r >= 1 ? 'ok' : r > 0 ? '' : 'bad' }, fmt(r));
const simBadge = (run) =>
  run.simulated ? h('span', { class: 'badge sim', title: 'the calls were answered by the simulated model, not a real LLM' }, 'SIMULATED') : '';

function schedule(token, fn, live) {
  liveBadge.hidden = !live;
  clearTimeout(pollTimer);
  if (live) pollTimer = setTimeout(() => token === routeToken && Promise.resolve(fn()).catch(fail), 1000);
}

function fail(err) {
  app.replaceChildren(h('p', { class: 'error', 'data-testid': 'error' }, err.message));
}

// ── runs ─────────────────────────────────────────────────────────────
async function showRuns(token) {
  const data = await api('/api/runs');
  if (token !== routeToken) return; // the user went elsewhere meanwhile
  where.textContent = data.dir;
  app.replaceChildren(
    h('h1', {}, 'Runs'),
    data.runs.length === 0
      ? h('p', { class: 'muted' }, 'No run recorded yet.')
      : h(
          'table',
          { 'data-testid': 'runs' },
          h(
            'tr',
            {},
            ['run', 'status', 'harness', 'model', 'rollouts', 'mean reward', 'errors', 'started'].map((t) => h('th', {}, t)),
          ),
          data.runs.map((r) =>
            h(
              'tr',
              { class: 'clickable', onclick: () => (location.hash = `#/run/${enc(r.id)}`) },
              h('td', {}, h('a', { href: `#/run/${enc(r.id)}` }, r.id)),
              h('td', {}, r.status),
              h('td', {}, r.harness),
              h('td', {}, r.upstream, ' ', simBadge(r)),
              h('td', {}, r.rollouts),
              h('td', {}, fmt(r.meanReward, 3)),
              h('td', {}, r.errors),
              h('td', {}, time(r.createdAt)),
            ),
          ),
        ),
  );
  schedule(
    token,
    () => showRuns(token),
    data.runs.some((r) => r.status === 'running'),
  );
}

// ── one run ──────────────────────────────────────────────────────────
// Charts are built from every call of the run: fetched again when more rollouts have ended, at most every
// 10 s while the run goes on.
const runCharts = { runId: null, ended: -1, charts: null, at: 0 };

async function showRun(token, runId) {
  const { run, summary, rollouts } = await api(`/api/runs/${enc(runId)}`);
  const { runs } = await api('/api/runs');
  where.textContent = run.id;
  const k = run.k;
  const ended = rollouts.filter((r) => !isLive(r.status)).length;
  const live = run.status === 'running' || rollouts.some((r) => isLive(r.status));
  if (runCharts.runId !== runId || (runCharts.ended !== ended && (!live || Date.now() - runCharts.at > 10_000))) {
    const { charts } = await api(`/api/runs/${enc(runId)}/behaviour`);
    Object.assign(runCharts, { runId, ended, charts, at: Date.now() });
  }
  if (token !== routeToken) return;
  const others = runs.filter((r) => r.id !== run.id);
  const pick = h(
    'select',
    { 'data-testid': 'compare-with' },
    others.map((r) => h('option', { value: r.id }, `${r.id} (${r.harness}, ${r.upstream})`)),
  );
  app.replaceChildren(
    h('h1', {}, `Run ${run.id}`),
    h(
      'div',
      { class: 'facts' },
      h('span', {}, 'status ', h('b', { 'data-testid': 'run-status' }, run.status)),
      h('span', {}, `harness ${run.harness}`),
      h('span', {}, 'model ', run.upstream, ' ', simBadge(run)),
      h('span', {}, 'mean reward ', h('b', {}, fmt(summary.meanReward, 3))),
      h('span', {}, `pass@1 ${fmt(summary.passAt1, 3)}`),
      k > 1 ? h('span', {}, `pass@${k} ${fmt(summary.passAtK, 3)} · pass^${k} ${fmt(summary.passHatK, 3)}`) : '',
      h(
        'span',
        {},
        'errors ',
        Object.entries(summary.errors)
          .map(([t, n]) => `${t}×${n}`)
          .join(' ') || 'none',
      ),
    ),
    others.length
      ? h(
          'p',
          {},
          'Compare with ',
          pick,
          ' ',
          h('button', { 'data-testid': 'compare', onclick: () => (location.hash = `#/compare/${enc(run.id)}/${enc(pick.value)}`) }, 'Compare'),
        )
      : '',
    h('h2', {}, 'Tasks'),
    h(
      'table',
      { 'data-testid': 'tasks' },
      h(
        'tr',
        {},
        ['task', 'n', 'rewards', 'mean', 'pass@1', ...(k > 1 ? [`pass@${k}`, `pass^${k}`] : []), 'errors'].map((t) => h('th', {}, t)),
      ),
      summary.tasks.map((t) =>
        h(
          'tr',
          {},
          h('td', {}, t.taskId),
          h('td', {}, t.n),
          h('td', {}, t.rewards.map(fmt).join(' ')),
          h('td', {}, fmt(t.meanReward)),
          h('td', {}, fmt(t.passAt1)),
          k > 1 ? [h('td', {}, fmt(t.passAtK)), h('td', {}, fmt(t.passHatK))] : [],
          h(
            'td',
            {},
            Object.entries(t.errors)
              .map(([e, n]) => `${e}×${n}`)
              .join(' ') || '–',
          ),
        ),
      ),
    ),
    h('h2', {}, 'Reward and behaviour per task'),
    h('p', { class: 'muted' }, 'Means over the rollouts where a metric applies (docs/behaviour.md); a task without a bar has no value.'),
    charts(runCharts.charts),
    h('h2', {}, 'Rollouts'),
    h(
      'table',
      { 'data-testid': 'rollouts' },
      h(
        'tr',
        {},
        ['rollout', 'task', 'sample', 'attempt', 'status', 'reward', 'calls', 'error', 'from'].map((t) => h('th', {}, t)),
      ),
      rollouts.map((r) =>
        h(
          'tr',
          { class: 'clickable', 'data-rollout': r.id, onclick: () => (location.hash = `#/rollout/${enc(r.id)}`) },
          h('td', {}, h('a', { href: `#/rollout/${enc(r.id)}` }, r.id)),
          h('td', {}, r.taskId),
          h('td', {}, r.sampleIndex),
          h('td', {}, r.attempt),
          h('td', {}, r.status),
          h('td', {}, rewardCell(r.reward)),
          h('td', {}, r.calls),
          h('td', { class: r.errorType ? 'bad' : '' }, r.errorType ? `${r.errorType}: ${r.errorMessage}` : ''),
          h('td', {}, r.parent ? `${r.parent.kind} of ${r.parent.rolloutId}${r.parent.atSeq ? ` @${r.parent.atSeq}` : ''}` : ''),
        ),
      ),
    ),
  );
  schedule(token, () => showRun(token, runId), live);
}

/** SVG charts the server drew (src/analytics/charts), in a wrapping grid. */
function charts(list) {
  return h(
    'div',
    { class: 'charts', 'data-testid': 'charts' },
    list.map((c) => {
      const box = h('div', { class: 'chart-box', 'data-chart-key': c.key });
      box.innerHTML = c.svg;
      return box;
    }),
  );
}

// ── two runs compared ────────────────────────────────────────────────
// as the CLI prints them (formatMetric): counts of 100 or more whole, smaller ones with a decimal
const metricText = (unit, x) =>
  x === null || x === undefined
    ? '–'
    : unit === 'ms'
      ? ms(x)
      : unit === 'count'
        ? Math.abs(x) >= 100
          ? String(Math.round(x))
          : x.toFixed(1)
        : x.toFixed(unit === 'reward' ? 3 : 2);
const signed = (unit, x) => (x !== null && x > 0 ? `+${metricText(unit, x)}` : metricText(unit, x));

function valueTable(values, testid) {
  return h(
    'table',
    { 'data-testid': testid, class: 'values' },
    h(
      'tr',
      {},
      ['', 'A', 'B', 'B − A', '95% interval'].map((t) => h('th', {}, t)),
    ),
    values.map((v) =>
      h(
        'tr',
        { 'data-key': v.key },
        h('td', {}, v.label),
        h('td', { class: 'num' }, metricText(v.unit, v.a)),
        h('td', { class: 'num' }, metricText(v.unit, v.b)),
        h(
          'td',
          { class: `num ${v.diff === null || v.diff === 0 || v.higherIsBetter === undefined ? '' : v.diff > 0 === v.higherIsBetter ? 'ok' : 'bad'}` },
          signed(v.unit, v.diff),
        ),
        h('td', { class: 'num' }, v.interval ? `[${signed(v.unit, v.interval.low)}, ${signed(v.unit, v.interval.high)}]` : '–'),
      ),
    ),
  );
}

async function showCompare(token, a, b) {
  const { comparison: c, charts: list } = await api(`/api/compare?a=${enc(a)}&b=${enc(b)}`);
  if (token !== routeToken) return;
  where.textContent = `${a} ↔ ${b}`;
  const side = (name, s) =>
    h(
      'span',
      {},
      h('b', {}, name),
      ' ',
      h('a', { href: `#/run/${enc(s.runId)}` }, s.runId),
      ` · ${s.harness} · ${s.upstream}${s.simulated ? ' (SIMULATED)' : ''} · ${s.rollouts} rollouts`,
    );
  // each rollout as its reward, linked to its page
  const links = (ls) => ls.map((l) => [h('a', { href: l.url, title: l.rolloutId, class: 'reward-link' }, fmt(l.reward)), ' ']);
  app.replaceChildren(
    h('h1', {}, 'Compare runs'),
    h('div', { class: 'facts' }, side('A', c.a), side('B', c.b)),
    h(
      'p',
      { class: 'muted' },
      `${c.tasks.length} task(s) in both · B − A with its ${Math.round(c.bootstrap.level * 100)}% bootstrap interval (${c.bootstrap.resamples} resamples within each task, seed ${c.bootstrap.seed})`,
      c.onlyIn.a.length + c.onlyIn.b.length ? ` · in one run only: ${[...c.onlyIn.a, ...c.onlyIn.b].join(', ')}` : '',
    ),
    h('h2', {}, 'Overall'),
    valueTable(c.overall, 'compare-overall'),
    h('h2', {}, 'Outcome flipped'),
    c.flipped.length
      ? h(
          'table',
          { 'data-testid': 'flipped' },
          h(
            'tr',
            {},
            ['task', 'A', 'B', 'rewards of A', 'rewards of B'].map((t) => h('th', {}, t)),
          ),
          c.flipped.map((t) =>
            h(
              'tr',
              { 'data-task': t.taskId },
              h('td', {}, t.taskId),
              h('td', { class: 'num' }, t.outcome.a),
              h('td', { class: 'num' }, t.outcome.b),
              h('td', {}, links(t.links.a)),
              h('td', {}, links(t.links.b)),
            ),
          ),
        )
      : h('p', { class: 'muted', 'data-testid': 'flipped' }, 'No task flipped its outcome (pass: every rollout passed, fail: none did).'),
    h('h2', {}, 'Paired bars'),
    charts(list),
    h('h2', {}, 'Per task'),
    c.tasks.map((t) => h('details', {}, h('summary', {}, `${t.taskId} · A ${t.outcome.a} · B ${t.outcome.b}`), valueTable(t.values, `compare-${t.taskId}`))),
  );
}

// ── one rollout ──────────────────────────────────────────────────────
const rolloutState = { id: null, seq: null };

async function showRollout(token, rolloutId, seq) {
  let view;
  try {
    view = await api(`/api/rollouts/${enc(rolloutId)}`);
  } catch (err) {
    if (err.status !== 404) throw err;
    // `openforge debug` prints a rollout's link before the rollout is stored: wait for it to appear
    app.replaceChildren(h('p', { class: 'error', 'data-testid': 'error' }, `${err.message} — looking again every second, in case its run is still starting`));
    schedule(token, () => showRollout(token, rolloutId, seq), true);
    return;
  }
  if (token !== routeToken) return;
  const { rollout, run } = view;
  where.textContent = `${run.id} / ${rollout.taskId}`;
  const firstRender = rolloutState.id !== rolloutId || !document.getElementById('timeline');
  rolloutState.id = rolloutId;
  if (firstRender) {
    app.replaceChildren(
      h('h1', {}, `Rollout ${rollout.id}`),
      h('div', { id: 'facts' }),
      h('h2', {}, 'Timeline'),
      h('div', { id: 'phase-timeline', class: 'panel', 'data-testid': 'phase-timeline' }),
      h('div', { id: 'liveview' }),
      h(
        'div',
        { class: 'cols' },
        h('section', {}, h('h2', {}, 'Model calls'), h('div', { id: 'timeline' })),
        h('section', {}, h('h2', {}, 'Call'), h('div', { id: 'detail', class: 'panel' }, h('p', { class: 'muted' }, 'Pick a call on the left.'))),
      ),
      h('h2', {}, 'Artifacts'),
      h('div', { id: 'artifacts', class: 'panel' }),
      h('h2', {}, 'Events'),
      h('div', { id: 'events' }),
    );
  }
  renderFacts(view);
  document.getElementById('phase-timeline').innerHTML = view.timeline.svg;
  renderLiveView(view);
  renderTimeline(view, seq);
  renderArtifacts(view, firstRender);
  document.getElementById('events').replaceChildren(
    h(
      'table',
      {},
      view.events.map((e) => h('tr', {}, h('td', { class: 'muted' }, time(e.ts)), h('td', {}, e.kind), h('td', {}, e.message))),
    ),
  );
  if (seq && rolloutState.seq !== seq) await showCall(rolloutId, seq, view);
  schedule(token, () => showRollout(token, rolloutId, seq), isLive(rollout.status));
}

function renderFacts(view) {
  const { rollout: r, run } = view;
  const parent = r.parent
    ? h(
        'span',
        { 'data-testid': 'parent' },
        `${r.parent.kind} of `,
        h('a', { href: `#/rollout/${enc(r.parent.rolloutId)}` }, r.parent.rolloutId),
        r.parent.atSeq ? ` at call ${r.parent.atSeq}` : '',
      )
    : '';
  document.getElementById('facts').replaceChildren(
    h(
      'div',
      { class: 'facts' },
      h('span', {}, 'run ', h('a', { href: `#/run/${enc(run.id)}` }, run.id)),
      h('span', {}, `task ${r.taskId} #${r.sampleIndex} (attempt ${r.attempt})`),
      h('span', {}, 'status ', h('b', { 'data-testid': 'rollout-status' }, r.status)),
      h('span', {}, 'reward ', h('b', { 'data-testid': 'reward' }, rewardCell(r.reward))),
      h('span', {}, `harness ${r.harness}`),
      h('span', {}, 'model ', run.upstream, ' ', simBadge(run)),
      parent,
      r.errorType ? h('span', { class: 'bad', 'data-testid': 'rollout-error' }, `${r.errorType}: ${r.errorMessage}`) : '',
    ),
    view.children.length
      ? h(
          'p',
          { 'data-testid': 'children' },
          'Re-runs of this rollout: ',
          view.children.map((c) =>
            h(
              'span',
              {},
              h('a', { href: `#/rollout/${enc(c.id)}` }, c.id),
              ` (${c.parent.kind}${c.parent.atSeq ? ` at call ${c.parent.atSeq}` : ''}, reward ${fmt(c.reward)}) `,
            ),
          ),
        )
      : '',
    h(
      'p',
      {},
      h('button', { 'data-testid': 'replay', onclick: () => startReplay(r.id), disabled: isLive(r.status) }, 'Replay (determinism check)'),
      ' ',
      h('span', { id: 'replay-result' }),
      ' ',
      h('span', { class: 'muted' }, 'shell into its container (kept by openforge debug): ', h('code', {}, `openforge shell ${r.id}`)),
    ),
  );
}

// Browser environments record their noVNC live view as an event of kind "live_view" (the URL).
function renderLiveView(view) {
  const box = document.getElementById('liveview');
  if (!view.liveViewUrl) return box.replaceChildren();
  if (box.querySelector('iframe')?.getAttribute('src') === view.liveViewUrl) return;
  box.replaceChildren(h('h2', {}, 'Live view'), h('iframe', { class: 'liveview', src: view.liveViewUrl, 'data-testid': 'liveview', title: 'noVNC live view' }));
}

function renderTimeline(view, selected) {
  const rows = view.calls.map((c) => {
    const tools = c.answer.toolCalls.map((t) => `${t.name}(${t.arguments.length > 80 ? `${t.arguments.slice(0, 80)}…` : t.arguments})`).join(', ');
    return h(
      'tr',
      {
        class: `clickable${c.seq === selected ? ' selected' : ''}`,
        'data-seq': c.seq,
        onclick: () => (location.hash = `#/rollout/${enc(view.rollout.id)}/call/${c.seq}`),
      },
      h('td', { class: 'num' }, c.seq),
      h('td', { class: 'num' }, c.label),
      h('td', { class: c.status === 200 ? 'num' : 'num bad' }, c.status),
      h('td', { class: 'num' }, ms(c.durationMs)),
      h('td', {}, tools ? h('code', {}, tools) : h('span', {}, c.answer.text.slice(0, 120) || h('span', { class: 'muted' }, c.error ?? '(empty)'))),
      h('td', { class: 'muted num' }, `${c.promptTokens ?? '–'} + ${c.completionTokens ?? '–'}`, c.images ? ` · ${c.images} image(s)` : ''),
    );
  });
  document.getElementById('timeline').replaceChildren(
    view.calls.length === 0
      ? h('p', { class: 'muted', 'data-testid': 'no-calls' }, 'No model calls recorded (yet).')
      : h(
          'table',
          { 'data-testid': 'calls' },
          h(
            'tr',
            {},
            ['#', 'label', 'status', 'latency', 'answer', 'tokens'].map((t) => h('th', {}, t)),
          ),
          rows,
        ),
  );
}

function renderArtifacts(view, firstRender) {
  const box = document.getElementById('artifacts');
  const files = view.artifacts;
  const links = h(
    'div',
    { class: 'files', 'data-testid': 'artifacts' },
    files.length === 0
      ? h('span', { class: 'muted' }, `No artifacts in ${view.artifactsDir} (the rollout has not reached collection, or they were removed).`)
      : files.map((f) => h('a', { 'data-path': f.path, onclick: () => showFile(view.rollout.id, f.path) }, `${f.path} (${f.size} B)`)),
  );
  const shown = box.querySelector('pre');
  box.replaceChildren(links, ...(shown && !firstRender ? [box.querySelector('h3'), shown].filter(Boolean) : []));
  if (firstRender) {
    const first = ['agent/transcript.jsonl', 'exception.txt', 'agent/stderr.txt', 'verifier/test-stdout.txt'].find((p) => files.some((f) => f.path === p));
    if (first) void showFile(view.rollout.id, first);
  }
}

async function showFile(rolloutId, rel) {
  const box = document.getElementById('artifacts');
  try {
    const f = await api(`/api/rollouts/${enc(rolloutId)}/file?path=${enc(rel)}`);
    box.querySelector('h3')?.remove();
    box.querySelector('pre')?.remove();
    box.append(
      h('h3', {}, rel, f.truncated ? h('span', { class: 'muted' }, ` (first ${f.text.length} of ${f.size} bytes)`) : ''),
      h('pre', { 'data-testid': 'file' }, f.text),
    );
  } catch (err) {
    box.append(h('p', { class: 'error' }, err.message));
  }
}

async function showCall(rolloutId, seq) {
  rolloutState.seq = seq;
  const detail = document.getElementById('detail');
  let c;
  try {
    c = await api(`/api/rollouts/${enc(rolloutId)}/calls/${seq}`);
  } catch (err) {
    return detail.replaceChildren(h('p', { class: 'error' }, err.message));
  }
  const t = c.tokens;
  const tokenSpans = t.tokens.map((tok) =>
    h(
      'span',
      {
        class: `tok ${tok.kind}`,
        title: `id ${tok.id} · ${tok.kind}${tok.kind === 'prompt' ? '' : ` · mask ${tok.kind === 'model' ? 1 : 0}`}${tok.logprob !== undefined ? ` · logprob ${tok.logprob.toFixed(4)}` : ''}`,
      },
      tok.text ?? `${tok.id} `,
    ),
  );
  detail.replaceChildren(
    h(
      'div',
      { class: 'facts' },
      h('b', { 'data-testid': 'call-seq' }, `call ${c.seq}`),
      h('span', {}, c.label),
      h('span', {}, c.protocol),
      h('span', {}, `status ${c.status}`),
      h('span', {}, `latency ${ms(c.durationMs)} (first byte ${ms(c.ttfbMs)})`),
      h('span', {}, `finish ${c.finishReason ?? '–'}`),
      h('span', { class: 'muted' }, c.upstream),
    ),
    c.error ? h('p', { class: 'error' }, c.error) : '',
    h('h3', {}, seq === 1 ? 'Prompt' : 'Tool results / new messages'),
    h('div', { 'data-testid': 'observations' }, c.newMessages.map(renderMessage)),
    c.images.length
      ? [h('h3', {}, 'Screenshots'), c.images.map((src) => h('img', { class: 'shot', src, 'data-testid': 'screenshot', alt: 'image in the request' }))]
      : '',
    h('h3', {}, 'Answer'),
    h(
      'div',
      { 'data-testid': 'answer' },
      c.answer.text ? h('pre', {}, c.answer.text) : '',
      c.answer.toolCalls.map((tc) => h('pre', {}, `${tc.name} ${tc.arguments}`)),
    ),
    h('h3', {}, 'Tokens'),
    h(
      'p',
      { class: 'legend' },
      h('span', { class: 'tok prompt' }, 'prompt'),
      h('span', { class: 'tok observation' }, 'observation (mask 0)'),
      h('span', { class: 'tok model' }, 'model (mask 1)'),
      t.segment !== null ? h('span', { class: 'muted' }, `sample segment ${t.segment}`) : h('span', { class: 'muted' }, t.excluded ?? ''),
      t.decoded ? '' : h('span', { class: 'muted' }, 'token ids shown: the run did not use the sim tokenizer'),
    ),
    h('div', { class: 'tokens', 'data-testid': 'tokens' }, tokenSpans),
    h('details', {}, h('summary', {}, 'Raw request'), h('pre', {}, JSON.stringify(c.request, null, 2))),
    h('details', {}, h('summary', {}, 'Raw response'), h('pre', {}, JSON.stringify(c.response, null, 2))),
    c.label === 'policy' ? forkEditor(rolloutId, c.seq, c.fork) : '',
  );
  document.querySelectorAll('#timeline tr[data-seq]').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.seq) === seq));
}

function renderMessage(m) {
  const content =
    typeof m.content === 'string'
      ? m.content
      : Array.isArray(m.content)
        ? m.content
            .map((p) =>
              typeof p.text === 'string' ? p.text : p.type === 'image_url' || p.type === 'image' || p.type === 'input_image' ? '[image]' : JSON.stringify(p),
            )
            .join('')
        : m.content === undefined || m.content === null
          ? ''
          : JSON.stringify(m.content);
  return h(
    'div',
    { class: 'msg' },
    h('div', { class: 'role' }, m.role ?? m.type ?? '?', m.name ? ` (${m.name})` : ''),
    h('pre', {}, content || JSON.stringify(m)),
  );
}

// ── replay and fork ──────────────────────────────────────────────────
async function waitJob(job, onDone) {
  for (;;) {
    const j = await api(`/api/jobs/${job.id}`);
    if (j.status !== 'running') return onDone(j);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function startReplay(rolloutId) {
  const out = document.getElementById('replay-result');
  out.replaceChildren(h('span', { class: 'muted' }, 'replaying…'));
  try {
    const job = await api(`/api/rollouts/${enc(rolloutId)}/replay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await waitJob(job, (j) => {
      if (j.status === 'failed') return out.replaceChildren(h('span', { class: 'error', 'data-testid': 'replay-verdict' }, `replay failed: ${j.error}`));
      const r = j.result;
      out.replaceChildren(
        h('b', { class: r.identical ? 'ok' : 'bad', 'data-testid': 'replay-verdict' }, r.identical ? 'identical' : 'different'),
        ' ',
        h('a', { href: `#/rollout/${enc(r.rolloutId)}` }, r.rolloutId),
        r.differences.length ? h('pre', {}, r.differences.join('\n')) : '',
      );
    });
  } catch (err) {
    out.replaceChildren(h('span', { class: 'error', 'data-testid': 'replay-verdict' }, err.message));
  }
}

function forkEditor(rolloutId, seq, fork) {
  const area = h('textarea', { 'data-testid': 'fork-answer', spellcheck: 'false' }, JSON.stringify(fork.answer, null, 2));
  const upstream = h('input', { type: 'text', 'data-testid': 'fork-upstream', size: 36, placeholder: "default: the run's upstream" });
  const modelName = h('input', { type: 'text', 'data-testid': 'fork-model-name', size: 14, placeholder: "the run's" });
  const out = h('div', { 'data-testid': 'fork-result' });
  const button = h(
    'button',
    {
      'data-testid': 'fork-run',
      onclick: async () => {
        button.disabled = true;
        out.replaceChildren(h('span', { class: 'muted' }, 'forking…'));
        try {
          const job = await api(`/api/rollouts/${enc(rolloutId)}/fork`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              at: seq,
              answer: area.value,
              ...(upstream.value.trim() ? { upstream: upstream.value.trim() } : {}),
              ...(modelName.value.trim() ? { modelName: modelName.value.trim() } : {}),
            }),
          });
          await waitJob(job, (j) => {
            if (j.status === 'failed') return out.replaceChildren(h('p', { class: 'error' }, `fork failed: ${j.error}`));
            out.replaceChildren(
              h(
                'p',
                {},
                'fork ',
                h('a', { href: `#/rollout/${enc(j.result.rolloutId)}`, 'data-testid': 'fork-link' }, j.result.rolloutId),
                ` · reward ${fmt(j.result.reward)}`,
              ),
            );
          });
        } catch (err) {
          out.replaceChildren(h('p', { class: 'error', 'data-testid': 'fork-error' }, err.message));
        } finally {
          button.disabled = false;
        }
      },
    },
    `Fork at call ${seq}`,
  );
  return h(
    'details',
    { 'data-testid': 'fork' },
    h('summary', {}, `Fork here: replay calls 1–${seq - 1}, answer call ${seq} with an edited answer, continue with a model`),
    h('p', { class: 'muted' }, `Write ${fork.shape}.`),
    area,
    h('p', {}, 'then continue with ', upstream, ' model name ', modelName, ' ', button),
    h(
      'p',
      { class: 'muted' },
      'Upstream: sim:oracle, sim:noisy:<p>, or the base URL of an OpenAI-compatible server such as http://127.0.0.1:8000/v1 (your vLLM). Calls 1–',
      String(seq),
      ' are answered by the proxy from the record and your edit; every later call goes to that upstream.',
    ),
    out,
  );
}

// ── router ───────────────────────────────────────────────────────────
async function route() {
  const token = ++routeToken;
  clearTimeout(pollTimer);
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  try {
    if (parts[0] === 'run' && parts[1]) {
      rolloutState.id = null;
      await showRun(token, parts[1]);
    } else if (parts[0] === 'compare' && parts[1] && parts[2]) {
      rolloutState.id = null;
      liveBadge.hidden = true;
      await showCompare(token, parts[1], parts[2]);
    } else if (parts[0] === 'rollout' && parts[1]) {
      const seq = parts[2] === 'call' ? Number(parts[3]) : null;
      if (rolloutState.id !== parts[1]) rolloutState.seq = null;
      await showRollout(token, parts[1], seq);
    } else {
      rolloutState.id = null;
      await showRuns(token);
    }
  } catch (err) {
    fail(err);
  }
}

window.addEventListener('hashchange', route);
route();
