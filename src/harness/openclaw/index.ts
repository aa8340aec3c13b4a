import { helperModel } from '../helper-model.js';
import { HARNESS_HOME, harnessModule, harnessNode } from '../layer.js';
import type { Harness, HarnessContext } from '../types.js';

const LAYER = 'openclaw';
const STATE_DIR = `${HARNESS_HOME}/.openclaw`;
const PROVIDER = 'openforge';

/**
 * OpenClaw (npm `openclaw`, pinned in images/harness-openclaw/, on Node 24), one embedded `agent --local`
 * turn against the proxy as an `openai-completions` provider. Its own agent workspace (bootstrap files,
 * memory) stays in its state dir; tools run in /workspace (`agents.defaults.cwd`). This version keeps
 * session transcripts in SQLite (agents/main/agent/openclaw-agent.sqlite, table transcript_events), not
 * in sessions/*.jsonl.
 */
export const openclaw: Harness = {
  name: 'openclaw',
  usesModel: true,
  layer: LAYER,
  minMemoryMb: 2048,
  // `openclaw agent` has no turn limit for its main agent (its tool budgets cover cron and repair agents only).
  maxTurnsAtProxy: true,
  setup: (ctx) => ({
    files: [{ path: `${STATE_DIR}/openclaw.json`, content: JSON.stringify(config(ctx), null, 2) }],
    env: {
      HOME: HARNESS_HOME,
      OPENCLAW_STATE_DIR: STATE_DIR,
      // The exec tool runs commands with $SHELL (else sh, which is dash here).
      SHELL: '/bin/bash',
      OPENCLAW_NO_AUTO_UPDATE: '1',
      OPENCLAW_DISABLE_BONJOUR: '1',
      NO_COLOR: '1',
    },
    copies: [],
  }),
  command: (ctx) => [
    harnessNode(LAYER),
    harnessModule(LAYER, 'openclaw/openclaw.mjs'),
    'agent',
    '--local',
    '--agent',
    'main',
    '--session-id',
    'rollout',
    '--thinking',
    'off',
    '--json',
    '--message',
    ctx.task.instruction,
  ],
  transcriptPaths: [`${STATE_DIR}/agents`],
};

function config(ctx: HarnessContext): unknown {
  const model = (id: string) => ({
    id,
    name: id,
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 131072,
    maxTokens: 8192,
  });
  const small = `${PROVIDER}/${helperModel(ctx.model)}`;
  return {
    models: {
      mode: 'replace',
      providers: {
        [PROVIDER]: { baseUrl: ctx.proxyBaseUrl, apiKey: ctx.secret, api: 'openai-completions', models: [model(ctx.model), model(helperModel(ctx.model))] },
      },
    },
    agents: {
      defaults: {
        model: { primary: `${PROVIDER}/${ctx.model}` },
        // Titles, recaps and compaction summaries are helper calls: a distinct alias labels them.
        utilityModel: small,
        compaction: { model: small },
        workspace: `${STATE_DIR}/workspace`,
        cwd: ctx.workdir,
        sandbox: { mode: 'off' },
      },
    },
    tools: { exec: { host: 'gateway', security: 'full' } },
    update: { checkOnStart: false },
    telemetry: { enabled: false },
  };
}
