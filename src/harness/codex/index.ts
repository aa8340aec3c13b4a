import { ENV_TOKEN_VAR } from '../gui-environment.js';
import { HARNESS_HOME, harnessModule, harnessNode } from '../layer.js';
import type { Harness, HarnessContext } from '../types.js';

const LAYER = 'codex';
const CODEX_HOME = `${HARNESS_HOME}/.codex`;
const API_KEY_VAR = 'OPENFORGE_API_KEY';

/**
 * Codex CLI (@openai/codex, pinned in images/harness-codex/; the native binary comes from the platform
 * optional dependency), `codex exec` speaking the Responses API over SSE to the proxy. The provider id is
 * not `openai`, so none of the built-in OpenAI provider's behaviour (login, WebSocket) applies. On a GUI
 * task the env server is an `[mcp_servers.<kind>]` over streamable HTTP, its token read from the environment.
 */
export const codex: Harness = {
  name: 'codex',
  usesModel: true,
  layer: LAYER,
  minMemoryMb: 1024,
  // No turn limit in `codex exec` (no flag or config key in 0.171.0).
  maxTurnsAtProxy: true,
  // exec_command results open with "Chunk ID: 1f0a2b\nWall time: 0.0123 seconds", new on every run
  volatileToolOutput: [/Chunk ID: \w+/g, /Wall time: [\d.]+ seconds/g],
  setup: (ctx) => ({
    files: [{ path: `${CODEX_HOME}/config.toml`, content: configToml(ctx) }],
    env: {
      HOME: HARNESS_HOME,
      CODEX_HOME,
      [API_KEY_VAR]: ctx.secret,
      SHELL: '/bin/bash',
      NO_COLOR: '1',
      ...(ctx.environment ? { [ENV_TOKEN_VAR]: ctx.environment.token } : {}),
    },
    copies: [],
  }),
  command: (ctx) => [
    harnessNode(LAYER),
    harnessModule(LAYER, '@openai/codex/bin/codex.js'),
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '--cd',
    ctx.workdir,
    '--',
    ctx.task.instruction,
  ],
  transcriptPaths: [`${CODEX_HOME}/sessions`],
};

function configToml(ctx: HarnessContext): string {
  return [
    `model = ${JSON.stringify(ctx.model)}`,
    'model_provider = "openforge"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[model_providers.openforge]',
    'name = "OpenForge recording proxy"',
    `base_url = ${JSON.stringify(ctx.proxyBaseUrl)}`,
    `env_key = "${API_KEY_VAR}"`,
    'wire_api = "responses"',
    'supports_websockets = false',
    '',
    ...(ctx.environment
      ? [
          `[mcp_servers.${ctx.environment.kind}]`,
          `url = ${JSON.stringify(ctx.environment.mcpUrl)}`,
          `bearer_token_env_var = "${ENV_TOKEN_VAR}"`,
          'startup_timeout_sec = 60',
          'tool_timeout_sec = 120',
          '',
        ]
      : []),
  ].join('\n');
}
