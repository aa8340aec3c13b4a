import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildEnvApp, type EnvServerSpec } from '../../../../src/in-container/env-server/app.js';
import { observationContent } from '../../../../src/in-container/env-server/mcp.js';

/** An environment registered into the kit that records what the routes hand it. */
function recordingSpec() {
  const seen: unknown[] = [];
  const spec: EnvServerSpec<{ start: string }> = {
    health: async () => ({ ok: true }),
    resetSchema: z.object({ start: z.string() }),
    reset: async (req) => (seen.push(['reset', req]), { reset: req.start }),
    step: async (schema, actions, options) => (seen.push(['step', schema, actions, options]), { stepped: actions.length }),
    observation: async (q) => {
      if (q.fail) throw new Error('the screen is gone');
      return { q };
    },
    mcp: async () => ({ name: 'test', register: () => undefined }),
  };
  return { spec, seen };
}

describe('the env server kit', () => {
  it('routes /reset and /step into the env, refusing a bad body by the field at fault', async () => {
    const { spec, seen } = recordingSpec();
    const app = buildEnvApp(spec, { verifierDir: '/tmp', evaluateTimeoutMs: 1000 });
    expect((await app.inject({ method: 'POST', url: '/reset', payload: { start: 'a' } })).json()).toEqual({ reset: 'a' });
    const bad = await app.inject({ method: 'POST', url: '/reset', payload: { start: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/^invalid request: start:/);
    expect((await app.inject({ method: 'POST', url: '/step', payload: { action: { type: 'wait', ms: 1 }, options: { a11y_tree: true } } })).json()).toEqual({
      stepped: 1,
    });
    expect(seen.at(-1)).toEqual(['step', 'canonical', [{ type: 'wait', ms: 1 }], { a11y_tree: true }]);
    const none = await app.inject({ method: 'POST', url: '/step', payload: { schema: 'openai' } });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toMatch(/send "action" \(one\) or "actions"/);
    expect((await app.inject({ method: 'GET', url: '/observation?a11y_tree=1' })).json()).toEqual({ q: { a11y_tree: '1' } });
    const failed = await app.inject({ method: 'GET', url: '/observation?fail=1' });
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toEqual({ error: 'the screen is gone' });
    await app.close();
  });

  it("runs the task's evaluator for /evaluate and reads its reward, or says what it left out", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'of-kit-'));
    const app = buildEnvApp(recordingSpec().spec, { verifierDir: dir, evaluateTimeoutMs: 5000 });
    const ok = await app.inject({ method: 'POST', url: '/evaluate', payload: { command: `echo graded; echo 0.5 > ${dir}/reward.txt` } });
    expect(ok.json()).toMatchObject({ reward: 0.5, stdout: 'graded\n' });
    const none = await app.inject({ method: 'POST', url: '/evaluate', payload: { command: 'exit 3' } });
    expect(none.statusCode).toBe(422);
    expect(none.json().error).toMatch(/exit 3\) wrote neither .*reward.txt nor .*reward.json/);
    await app.close();
  });

  it('turns an observation into MCP content: JSON summary, its text field apart, the screenshot as an image', () => {
    const obs = { screenshot: { data: 'iVBO', mime: 'image/png', width: 2, height: 1 }, title: 't', a11y_tree: '<desktop-frame/>', last_action_error: null };
    expect(observationContent(obs, 'a11y_tree')).toEqual({
      content: [
        { type: 'text', text: JSON.stringify({ title: 't', last_action_error: null, screenshot: { mime: 'image/png', width: 2, height: 1 } }) },
        { type: 'text', text: '<desktop-frame/>' },
        { type: 'image', data: 'iVBO', mimeType: 'image/png' },
      ],
    });
    // a failed action: said in a text part and the summary, the screenshot still shown (no MCP isError)
    const failed = observationContent({ ...obs, last_action_error: { code: 'out_of_range', message: '(5000, 5000) is off the screen' } }, 'a11y_tree');
    expect(failed).not.toHaveProperty('isError');
    expect(failed.content[1]).toEqual({
      type: 'text',
      text: 'Error: the action failed (out_of_range: (5000, 5000) is off the screen); the screenshot shows the screen as it is now.',
    });
    expect(failed.content.at(-1)).toEqual({ type: 'image', data: 'iVBO', mimeType: 'image/png' });
  });
});
