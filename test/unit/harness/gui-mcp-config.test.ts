import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { getHarness } from '../../../src/harness/registry.js';
import type { HarnessContext } from '../../../src/harness/types.js';

const TOKEN = 'env-token-0123456789';
const MCP_URL = 'http://127.0.0.1:7000/mcp';

function ctx(gui: boolean): HarnessContext {
  const task = loadTask(path.resolve('envs/browser-basic/todo-app'));
  return {
    task,
    proxyBaseUrl: 'http://172.30.0.1:41234/s/sess/v1',
    secret: 'sess',
    model: 'policy',
    maxTurns: 30,
    instructionPath: '/logs/agent/instruction.md',
    workdir: '/workspace',
    ...(gui ? { environmentToken: TOKEN, environment: { kind: 'browser' as const, mcpUrl: MCP_URL, token: TOKEN } } : {}),
  };
}

function fileOf(harness: string, suffix: string, gui = true): string {
  const f = getHarness(harness)
    .setup(ctx(gui))
    .files.find((f) => f.path.endsWith(suffix));
  if (!f) throw new Error(`${harness} writes no ${suffix}`);
  return String(f.content);
}

describe("real harnesses get the rollout's GUI env server as an MCP server", () => {
  it('Claude Code: --mcp-config with the bearer token, strict, tools not deferred', () => {
    const h = getHarness('claude-code');
    const argv = h.command(ctx(true));
    const at = argv.indexOf('--mcp-config');
    expect(at).toBeGreaterThan(0);
    expect(argv).toContain('--strict-mcp-config');
    expect(at).toBeLessThan(argv.indexOf('--'));
    const config = JSON.parse(fileOf('claude-code', argv[at + 1]!)) as { mcpServers: Record<string, unknown> };
    expect(config.mcpServers).toEqual({ browser: { type: 'http', url: MCP_URL, headers: { Authorization: `Bearer ${TOKEN}` } } });
    expect(h.setup(ctx(true)).env.ENABLE_TOOL_SEARCH).toBe('false');
    expect(h.command(ctx(false))).not.toContain('--mcp-config');
    expect(h.setup(ctx(false)).files).toEqual([]);
  });

  it('Codex: [mcp_servers.browser] over streamable HTTP, the token by env variable', () => {
    const toml = parseToml(fileOf('codex', 'config.toml')) as { mcp_servers?: Record<string, Record<string, unknown>> };
    expect(toml.mcp_servers?.browser).toMatchObject({ url: MCP_URL, bearer_token_env_var: 'OPENFORGE_ENV_TOKEN' });
    expect(getHarness('codex').setup(ctx(true)).env.OPENFORGE_ENV_TOKEN).toBe(TOKEN);
    expect((parseToml(fileOf('codex', 'config.toml', false)) as { mcp_servers?: unknown }).mcp_servers).toBeUndefined();
  });

  it('Qwen Code: mcpServers.browser.httpUrl with the Authorization header, trusted, tools not deferred, images shown', () => {
    type Settings = { mcpServers?: Record<string, Record<string, unknown>>; model: { name: string; generationConfig?: { modalities?: unknown } } };
    const settings = JSON.parse(fileOf('qwen-code', 'settings.json')) as Settings;
    expect(settings.mcpServers?.browser).toMatchObject({
      httpUrl: MCP_URL,
      headers: { Authorization: `Bearer ${TOKEN}` },
      trust: true,
      alwaysLoadTools: true,
    });
    expect(settings.model.generationConfig?.modalities).toEqual({ image: true });
    const plain = JSON.parse(fileOf('qwen-code', 'settings.json', false)) as Settings;
    expect(plain.mcpServers).toBeUndefined();
    expect(plain.model).toEqual({ name: 'policy' });
  });

  it('opencode: a remote mcp entry in its config, the policy model declared to take images', () => {
    const config = JSON.parse(getHarness('opencode').setup(ctx(true)).env.OPENCODE_CONFIG_CONTENT!) as { mcp?: Record<string, Record<string, unknown>> };
    expect(config.mcp?.browser).toMatchObject({ type: 'remote', url: MCP_URL, headers: { Authorization: `Bearer ${TOKEN}` }, enabled: true });
    // the policy model takes the screenshots
    const models = (config as { provider: Record<string, { models: Record<string, unknown> }> }).provider.openforge!.models;
    expect(models.policy).toEqual({ name: 'policy', attachment: true, modalities: { input: ['text', 'image'], output: ['text'] } });
    const plain = JSON.parse(getHarness('opencode').setup(ctx(false)).env.OPENCODE_CONFIG_CONTENT!) as {
      mcp?: unknown;
      provider: Record<string, { models: Record<string, unknown> }>;
    };
    expect(plain.mcp).toBeUndefined();
    expect(plain.provider.openforge!.models.policy).toEqual({ name: 'policy' });
  });
});
