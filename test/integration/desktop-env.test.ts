import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesktopObservation } from '../../src/in-container/desktop-env/actions.js';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';
import type { RunNetwork, Sandbox } from '../../src/sandbox/types.js';
import { pixelAt } from '../helpers/png.js';

/**
 * The desktop env server in the real desktop image: Xvfb, openbox, real apps, xdotool, X damage and AT-SPI.
 * Driven over HTTP from the host as the orchestrator and agents drive it, with the rollout's token.
 */
const TOKEN = 'desktop-test-token';
let backend: DockerBackend;
let network: RunNetwork;
let box: Sandbox;
let url: string;
const runId = `test-desktop-${process.pid}`;

async function call<T = DesktopObservation>(route: string, body?: unknown, token = TOKEN): Promise<{ status: number; json: T }> {
  const res = await fetch(`${url}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as T };
}
/** 34 distinct characters no key of the keymap types: Latin-1, Greek, CJK, an emoji outside the BMP. */
const MANY = 'ÅÆØ αβγδεζηθικλμνξοπρστυφχψω 日本語 — é ü 🙂';
const step = async (action: unknown, extra: Record<string, unknown> = {}) => (await call('/step', { action, ...extra })).json;

/** Every item of the image's registrymodifications.xcu against the installed LibreOffice's configuration schema. */
const XCU_CHECK = `
import glob
from lxml import etree
O = '{http://openoffice.org/2001/registry}'
known = set()
def walk(el, pre):
    for c in el:
        if not isinstance(c.tag, str): continue
        if c.tag == 'prop': known.add(pre + '/' + c.get(O + 'name'))
        elif c.tag in ('group', 'set'): walk(c, pre + '/' + c.get(O + 'name'))
for f in glob.glob('/usr/lib/libreoffice/share/registry/*.xcd'):
    for comp in etree.parse(f).getroot().iter(O + 'component-schema'):
        body = comp.find('component')
        if body is not None: walk(body, '/' + comp.get(O + 'package') + '.' + comp.get(O + 'name'))
xcu = etree.parse('/root/.config/libreoffice/4/user/registrymodifications.xcu').getroot()
unknown = [it.get(O + 'path') + '/' + p.get(O + 'name') for it in xcu.iter('item') for p in it.iter('prop') if it.get(O + 'path') + '/' + p.get(O + 'name') not in known]
print('unknown: ' + ', '.join(unknown) if unknown else 'all known')
`;

beforeAll(async () => {
  backend = new DockerBackend();
  await backend.check();
  const image = await new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA }).ensureDesktop();
  network = await backend.prepareNetwork(runId, 'proxy-only');
  box = await backend.create({ runId, rolloutId: `${runId}-0`, image, resources: { cpus: 2, memoryMb: 2048, pids: 2048 }, network, lifetimeSec: 1800 });
  await box.writeFiles([{ path: '/root/Desktop/notes.txt', content: '' }]);
  const up = await box.exec(['/opt/openforge/bin/start-desktop-env'], {
    timeoutSec: 330,
    env: { OPENFORGE_START_DEADLINE: '300', OPENFORGE_ENV_TOKEN: TOKEN },
  });
  if (up.exitCode !== 0) throw new Error(`start-desktop-env exited ${up.exitCode}:\n${up.stdout}\n${up.stderr}`);
  url = `http://${await box.address!()}:7000`;
}, 900_000);

afterAll(async () => {
  await backend?.removeRun(runId);
  if (network) await backend.releaseNetwork(network).catch(() => undefined);
});

describe('desktop env server (real X, real apps)', () => {
  it('answers its rollout only', async () => {
    expect((await call('/observation', undefined, 'wrong')).status).toBe(401);
    expect((await fetch(`${url}/health`).then((r) => r.json())) as unknown).toMatchObject({ ok: true, screen: { width: 1280, height: 800 } });
  });

  it('resets with an app launched, and types unicode into it through xdotool; the screenshot is the X screen', async () => {
    const first = (await call('/reset', { launch: ['mousepad /root/Desktop/notes.txt'], wait_for_window: 'notes.txt', timeout_ms: 180_000 })).json;
    expect(first.last_action_error).toBeNull();
    expect(first.title).toContain('notes.txt');
    expect(first.windows.some((w) => w.active && w.title.includes('notes.txt'))).toBe(true);
    const typed = await step({ type: 'type', text: 'Grüße ✓' });
    expect(typed.last_action_error).toBeNull();
    expect(typed.timings.settle_ms).toBeLessThan(2500);
    // more distinct characters beyond the keymap than there are spare keycodes: bindings are reused
    expect((await step({ type: 'type', text: `\n${MANY}` })).last_action_error).toBeNull();
    const saved = await step({ type: 'key', keys: ['Control', 's'] });
    expect(saved.last_action_error).toBeNull();
    const file = await box.exec([
      'bash',
      '-c',
      'for i in $(seq 1 50); do [ -s /root/Desktop/notes.txt ] && break; sleep 0.2; done; cat /root/Desktop/notes.txt',
    ]);
    expect(file.stdout.trim()).toBe(`Grüße ✓\n${MANY}`);
    const png = Buffer.from(saved.screenshot.data, 'base64');
    expect(saved.screenshot).toMatchObject({ mime: 'image/png', width: 1280, height: 800 });
    // the panel at the bottom is dark, the editor above it light
    expect(Math.max(...pixelAt(png, 640, 795))).toBeLessThan(90);
    expect(Math.min(...pixelAt(png, 640, 400))).toBeGreaterThan(180);
  });

  it("LibreOffice's profile names only settings its schema has (a misspelt one is ignored and its dialog returns)", async () => {
    const check = await box.exec(['python3', '-c', XCU_CHECK]);
    expect(check.stderr).toBe('');
    expect(check.stdout.trim()).toBe('all known');
  });

  it('takes every vendor schema the browser env takes', async () => {
    for (const [schema, action] of [
      ['anthropic', { action: 'key', text: 'ctrl+End' }],
      ['openai', { type: 'keypress', keys: ['ENTER'] }],
      ['pyautogui', "pyautogui.write('ok')"],
      ['osworld', { action_type: 'PRESS', parameters: { key: 'enter' } }],
      ['qwen25vl', { action: 'key', keys: ['ctrl', 'Home'] }],
    ] as const) {
      const obs = await step(action, { schema });
      expect(obs.last_action_error, `${schema}: ${JSON.stringify(obs.last_action_error)}`).toBeNull();
    }
  });

  it('reports bad actions as last_action_error and goes on', async () => {
    expect((await step({ type: 'click', x: 5000, y: 10 })).last_action_error?.code).toBe('out_of_range');
    expect((await step({ type: 'key', keys: ['NoSuchKey'] })).last_action_error?.code).toBe('unknown_key');
    expect((await step({ type: 'goto', url: 'http://example.test' })).last_action_error?.code).toBe('unsupported_action');
    expect((await step({ type: 'teleport' })).last_action_error?.code).toBe('unknown_action');
    expect((await step({ type: 'move', x: 100, y: 100 })).last_action_error).toBeNull();
  });

  it('says when an application crashed, once, and the episode goes on', async () => {
    await call('/reset', { launch: ['sleep 1; kill -SEGV $$'] });
    await new Promise((r) => setTimeout(r, 2500));
    const after = await step({ type: 'wait', ms: 10 });
    expect(after.last_action_error?.code).toBe('app_exited');
    expect(after.last_action_error?.message).toMatch(/SIGSEGV/);
    expect((await step({ type: 'wait', ms: 10 })).last_action_error).toBeNull();
  });

  it('gives the accessibility tree (AT-SPI) as XML when asked', async () => {
    await call('/reset', { launch: ['mousepad /root/Desktop/notes.txt'], wait_for_window: 'notes.txt', timeout_ms: 180_000 });
    const obs = await step({ type: 'wait', ms: 500 }, { options: { a11y_tree: true } });
    expect(obs.last_action_error).toBeNull();
    expect(obs.a11y_tree).toMatch(/^<desktop-frame/);
    expect(obs.a11y_tree).toMatch(/mousepad/i);
  });

  it("hears the accessibility tree's changes that settling waits on (openforge_a11y.py --watch)", async () => {
    expect((await box.exec(['pgrep', '-f', 'openforge_a11y.py --watch'])).exitCode).toBe(0);
    const watch = 'timeout 60 python3 /opt/openforge/python/openforge_a11y.py --watch > /tmp/a11y-events.txt 2>&1 < /dev/null & echo $! > /tmp/a11y-watch.pid;';
    const ready = 'for i in $(seq 1 100); do grep -q ready /tmp/a11y-events.txt && exit 0; sleep 0.1; done; exit 1';
    expect((await box.exec(['bash', '-c', `. /tmp/openforge-session.env; ${watch} ${ready}`])).exitCode).toBe(0);
    expect((await step({ type: 'key', keys: ['Alt', 'f'] })).last_action_error).toBeNull();
    expect((await step({ type: 'key', keys: ['Escape'] })).last_action_error).toBeNull();
    const events = await box.exec(['bash', '-c', 'sleep 0.5; grep -c "^e$" /tmp/a11y-events.txt; kill $(cat /tmp/a11y-watch.pid)']);
    expect(Number(events.stdout.trim().split('\n')[0])).toBeGreaterThan(0);
  });

  it('numbers what can be acted on (set-of-marks) and draws the marks on the screenshot', async () => {
    const obs = await step({ type: 'wait', ms: 10 }, { options: { set_of_marks: true } });
    expect(obs.last_action_error).toBeNull();
    const marks = obs.marks ?? [];
    expect(marks.length).toBeGreaterThan(3);
    expect(marks.map((m) => m.id)).toEqual(marks.map((_, i) => i + 1));
    expect(marks.some((m) => /menu/.test(m.role))).toBe(true);
    for (const m of marks) {
      expect(m.x + m.width).toBeLessThanOrEqual(1280);
      expect(m.y + m.height).toBeLessThanOrEqual(800);
    }
    const png = Buffer.from(obs.screenshot.data, 'base64');
    const last = marks.at(-1)!;
    expect(pixelAt(png, last.x + last.width - 1, last.y + last.height - 1)).toEqual([230, 30, 160]);
    const plain = await step({ type: 'wait', ms: 10 });
    expect(plain.marks).toBeUndefined();
  });

  it('runs Chromium (as root, --no-sandbox): its window is listed and its page is on the screen', async () => {
    await box.writeFiles([
      {
        path: '/root/Desktop/blue.html',
        content: '<title>Blue page</title><body style="margin:0;background:rgb(0,128,255)"><button>Blue button</button></body>',
      },
    ]);
    const idle = (await call('/reset', {})).json;
    const obs = (
      await call('/reset', {
        launch: ['chromium --no-sandbox --no-first-run --disable-gpu --user-data-dir=/tmp/chromium-test file:///root/Desktop/blue.html'],
        wait_for_window: 'Blue page',
        timeout_ms: 240_000,
      })
    ).json;
    expect(obs.last_action_error).toBeNull();
    expect(obs.windows.some((w) => w.active && w.title.includes('Blue page'))).toBe(true);
    expect(pixelAt(Buffer.from(idle.screenshot.data, 'base64'), 640, 500)).not.toEqual([0, 128, 255]);
    expect(pixelAt(Buffer.from(obs.screenshot.data, 'base64'), 640, 500)).toEqual([0, 128, 255]);
  });

  it("waits for what comes next: a page's element (Chromium's pages are in the accessibility tree) or a window title; wait_timeout when nothing comes", async () => {
    const page = await step({ type: 'wait', ms: 60_000, until: 'blue button' });
    expect(page.last_action_error).toBeNull();
    expect((await step({ type: 'wait', ms: 60_000, until: 'Blue page' })).last_action_error).toBeNull();
    const started = performance.now();
    const none = await step({ type: 'wait', ms: 1500, until: 'a name nothing has' });
    expect(none.last_action_error?.code).toBe('wait_timeout');
    expect(none.last_action_error?.message).toMatch(/a name nothing has/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1500);
  });

  it('runs GIMP: its window is listed with the image open and the screen shows it', async () => {
    const made = await box.exec(['python3', '-c', "from PIL import Image; Image.new('RGB', (300, 200), (250, 20, 20)).save('/root/Desktop/red.png')"]);
    expect(made.stderr).toBe('');
    const idle = (await call('/reset', {})).json;
    const obs = (await call('/reset', { launch: ['gimp --no-splash /root/Desktop/red.png'], wait_for_window: '[red]', timeout_ms: 300_000 })).json;
    expect(obs.last_action_error).toBeNull();
    expect(obs.windows.some((w) => /\[red\].*GIMP/.test(w.title))).toBe(true);
    expect(obs.screenshot.data).not.toBe(idle.screenshot.data);
  });
});
