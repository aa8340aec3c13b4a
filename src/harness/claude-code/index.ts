import { helperModel } from '../helper-model.js';
import { authorizationHeader } from '../gui-environment.js';
import { HARNESS_HOME, harnessModule } from '../layer.js';
import type { Harness, HarnessContext } from '../types.js';

const LAYER = 'claude-code';
const CONFIG_DIR = `${HARNESS_HOME}/.claude`;
/** The rollout's GUI env server as Claude Code's only MCP server (`--mcp-config`, `--strict-mcp-config`). */
const MCP_CONFIG = `${CONFIG_DIR}/openforge-mcp.json`;

/**
 * Claude Code (@anthropic-ai/claude-code, pinned in images/harness-claude-code/), the native binary its
 * platform package installs, speaking Anthropic Messages to the proxy. Every model alias points at the
 * proxy: the main and sub-agent models at the policy name, the small/fast (haiku) model at the helper
 * alias, so titles and summaries are labelled helper. On a GUI task the env server is its MCP server: its
 * tools reach the model as `mcp__<kind>__<tool>` and their screenshots as image blocks of the tool results.
 */
export const claudeCode: Harness = {
  name: 'claude-code',
  usesModel: true,
  layer: LAYER,
  minMemoryMb: 1024,
  setup: (ctx) => ({
    files: ctx.environment
      ? [
          {
            path: MCP_CONFIG,
            content: JSON.stringify({
              mcpServers: { [ctx.environment.kind]: { type: 'http', url: ctx.environment.mcpUrl, headers: authorizationHeader(ctx.environment) } },
            }),
            mode: 0o600,
          },
        ]
      : [],
    env: env(ctx),
    copies: [],
  }),
  command: (ctx) => [
    harnessModule(LAYER, '@anthropic-ai/claude-code/bin/claude.exe'),
    '-p',
    '--verbose',
    '--output-format',
    'stream-json',
    '--model',
    ctx.model,
    '--max-turns',
    String(ctx.maxTurns),
    '--dangerously-skip-permissions',
    ...(ctx.environment ? ['--mcp-config', MCP_CONFIG, '--strict-mcp-config'] : []),
    '--',
    ctx.task.instruction,
  ],
  transcriptPaths: [`${CONFIG_DIR}/projects`],
};

function env(ctx: HarnessContext): Record<string, string> {
  const small = helperModel(ctx.model);
  return {
    HOME: HARNESS_HOME,
    CLAUDE_CONFIG_DIR: CONFIG_DIR,
    SHELL: '/bin/bash',
    // Claude Code appends /v1/messages itself.
    ANTHROPIC_BASE_URL: ctx.proxyBaseUrl.replace(/\/v1\/?$/, ''),
    ANTHROPIC_API_KEY: ctx.secret,
    ANTHROPIC_MODEL: ctx.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: ctx.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: ctx.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: small,
    ANTHROPIC_SMALL_FAST_MODEL: small,
    CLAUDE_CODE_SUBAGENT_MODEL: ctx.model,
    // Running as root in a container: allowed with --dangerously-skip-permissions only when it knows.
    IS_SANDBOX: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // The GUI tools are what the episode is about: declared up front, not deferred behind its ToolSearch tool.
    ...(ctx.environment ? { ENABLE_TOOL_SEARCH: 'false' } : {}),
  };
}
