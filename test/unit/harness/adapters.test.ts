import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { RunConfigSchema } from '../../../src/config/run.js';
import { helperModel } from '../../../src/harness/helper-model.js';
import { HARNESS_ROOT } from '../../../src/sandbox/harness-layer.js';
import { getHarness, harnessNames } from '../../../src/harness/registry.js';
import type { HarnessContext } from '../../../src/harness/types.js';

const REAL = ['qwen-code', 'openclaw', 'claude-code', 'codex', 'opencode'];
const SECRET = 'sess-0123456789abcdef';
const BASE = `http://172.30.0.1:41234/s/${SECRET}/v1`;

function ctx(): HarnessContext {
  const task = loadTask(path.resolve('envs/claw-basic/create-config-file'));
  return { task, proxyBaseUrl: BASE, secret: SECRET, model: 'policy', maxTurns: 30, instructionPath: '/logs/agent/instruction.md', workdir: '/app' };
}

function file(harness: string, suffix: string): string {
  const f = getHarness(harness)
    .setup(ctx())
    .files.find((f) => f.path.endsWith(suffix));
  if (!f) throw new Error(`${harness} writes no ${suffix}`);
  return String(f.content);
}

describe('real-harness adapters', () => {
  it('are registered and selectable in run.yaml', () => {
    for (const name of REAL) {
      expect(harnessNames()).toContain(name);
      expect(RunConfigSchema.shape.harness.safeParse(name).success).toBe(true);
    }
  });

  it('each run from their pinned npm layer, with the instruction as one argument and nothing of the host', () => {
    for (const name of REAL) {
      const h = getHarness(name);
      expect(h.layer).toBe(name);
      expect(existsSync(`images/harness-${name}/package-lock.json`)).toBe(true);
      const pinned = JSON.parse(readFileSync(`images/harness-${name}/package.json`, 'utf8')) as { dependencies: Record<string, string> };
      for (const version of Object.values(pinned.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      const argv = h.command(ctx());
      expect(argv[0]!.startsWith(`${HARNESS_ROOT}/${name}/`)).toBe(true);
      expect(argv).toContain(ctx().task.instruction);
      expect(h.transcriptPaths.length).toBeGreaterThan(0);
      expect(h.minMemoryMb).toBeGreaterThanOrEqual(1024);
    }
  });

  it('point every model alias at the proxy with the rollout secret; helper aliases differ from the policy model', () => {
    const qwen = getHarness('qwen-code').setup(ctx());
    expect(qwen.env).toMatchObject({ OPENAI_BASE_URL: BASE, OPENAI_API_KEY: SECRET, OPENAI_MODEL: 'policy' });
    expect(JSON.parse(file('qwen-code', '/.qwen/settings.json'))).toMatchObject({
      fastModel: helperModel('policy'),
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    });

    const claw = JSON.parse(file('openclaw', '/.openclaw/openclaw.json'));
    expect(claw.models.providers.openforge).toMatchObject({ baseUrl: BASE, apiKey: SECRET, api: 'openai-completions' });
    expect(claw.agents.defaults).toMatchObject({
      model: { primary: 'openforge/policy' },
      utilityModel: 'openforge/policy-small',
      cwd: '/app',
      sandbox: { mode: 'off' },
    });
    expect(claw.update.checkOnStart).toBe(false);
    // the task's working directory (its image's WORKDIR), not a fixed /workspace
    expect(getHarness('codex').command(ctx()).join(' ')).toContain('--cd /app');
    expect(getHarness('forge-agent').command(ctx()).join(' ')).toContain('--workdir /app');

    const claude = getHarness('claude-code').setup(ctx()).env;
    expect(claude).toMatchObject({
      ANTHROPIC_BASE_URL: `http://172.30.0.1:41234/s/${SECRET}`,
      ANTHROPIC_API_KEY: SECRET,
      ANTHROPIC_MODEL: 'policy',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'policy',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'policy-small',
      ANTHROPIC_SMALL_FAST_MODEL: 'policy-small',
      CLAUDE_CODE_SUBAGENT_MODEL: 'policy',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });

    const codexToml = parseToml(file('codex', '/.codex/config.toml')) as Record<string, unknown>;
    expect(codexToml).toMatchObject({
      model: 'policy',
      model_provider: 'openforge',
      approval_policy: 'never',
      check_for_update_on_startup: false,
      model_providers: { openforge: { base_url: BASE, env_key: 'OPENFORGE_API_KEY', wire_api: 'responses', supports_websockets: false } },
    });
    expect(getHarness('codex').setup(ctx()).env.OPENFORGE_API_KEY).toBe(SECRET);

    const opencode = getHarness('opencode').setup(ctx()).env;
    expect(JSON.parse(opencode.OPENCODE_CONFIG_CONTENT!)).toMatchObject({
      provider: { openforge: { npm: '@ai-sdk/openai-compatible', options: { baseURL: BASE, apiKey: SECRET }, models: { policy: {}, 'policy-small': {} } } },
      model: 'openforge/policy',
      small_model: 'openforge/policy-small',
      autoupdate: false,
      share: 'disabled',
      plugin: [],
    });
    expect(opencode).toMatchObject({ OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1' });
  });

  it('turn off the harness sandbox and approval prompts in the headless command', () => {
    expect(getHarness('qwen-code').command(ctx())).toEqual(expect.arrayContaining(['--approval-mode', 'yolo', '--output-format', 'stream-json']));
    expect(getHarness('claude-code').command(ctx())).toEqual(
      expect.arrayContaining(['-p', '--dangerously-skip-permissions', '--output-format', 'stream-json']),
    );
    expect(getHarness('codex').command(ctx())).toEqual(expect.arrayContaining(['exec', '--json', '--dangerously-bypass-approvals-and-sandbox']));
    expect(getHarness('openclaw').command(ctx())).toEqual(expect.arrayContaining(['agent', '--local', '--json']));
    expect(getHarness('opencode').command(ctx())).toEqual(expect.arrayContaining(['run', '--format', 'json']));
    expect(JSON.parse(getHarness('opencode').setup(ctx()).env.OPENCODE_PERMISSION!)).toEqual({ '*': 'allow' });
  });
});
