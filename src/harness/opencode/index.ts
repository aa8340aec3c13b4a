import { helperModel } from '../helper-model.js';
import { authorizationHeader } from '../gui-environment.js';
import { HARNESS_HOME, harnessModule } from '../layer.js';
import type { Harness, HarnessContext } from '../types.js';

const LAYER = 'opencode';
const PROVIDER = 'openforge';
/** opencode keeps its sessions (SQLite) and logs under $XDG_DATA_HOME/opencode. */
const DATA_DIR = `${HARNESS_HOME}/.local/share/opencode`;

/**
 * opencode (npm `opencode-ai`, pinned in images/harness-opencode/), the native binary of its platform
 * package, `opencode run` against the proxy as an OpenAI-compatible provider. Its npm registry checks at
 * start fail fast behind the proxy-only network (the sandbox's resolver gives up after one short try) and
 * it goes on without them. Its small model (session titles) is the helper alias. On a GUI task the env
 * server is a remote MCP server in its config (`mcp.<kind>`).
 */
export const opencode: Harness = {
  name: 'opencode',
  usesModel: true,
  layer: LAYER,
  minMemoryMb: 1024,
  // `opencode run` has no turn limit of its own (its agent `steps` setting only nudges the model to wrap up).
  maxTurnsAtProxy: true,
  setup: (ctx) => ({
    files: [],
    env: {
      HOME: HARNESS_HOME,
      SHELL: '/bin/bash',
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config(ctx)),
      // Every tool call allowed: no approval prompt in a headless run.
      OPENCODE_PERMISSION: JSON.stringify({ '*': 'allow' }),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      NO_COLOR: '1',
    },
    copies: [],
  }),
  command: (ctx) => [
    harnessModule(LAYER, 'opencode-linux-x64/bin/opencode'),
    'run',
    '--print-logs',
    '--model',
    `${PROVIDER}/${ctx.model}`,
    '--format',
    'json',
    ctx.task.instruction,
  ],
  transcriptPaths: [DATA_DIR],
};

function config(ctx: HarnessContext): unknown {
  const small = helperModel(ctx.model);
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    plugin: [],
    provider: {
      [PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'OpenForge recording proxy',
        options: { baseURL: ctx.proxyBaseUrl, apiKey: ctx.secret },
        models: {
          // On a GUI task the policy model takes images: without it opencode replaces a tool result's screenshot
          // with "this model does not support image input".
          [ctx.model]: ctx.environment
            ? { name: ctx.model, attachment: true, modalities: { input: ['text', 'image'], output: ['text'] } }
            : { name: ctx.model },
          [small]: { name: small },
        },
      },
    },
    model: `${PROVIDER}/${ctx.model}`,
    small_model: `${PROVIDER}/${small}`,
    ...(ctx.environment
      ? {
          mcp: {
            [ctx.environment.kind]: {
              type: 'remote',
              url: ctx.environment.mcpUrl,
              headers: authorizationHeader(ctx.environment),
              enabled: true,
              timeout: 120_000,
            },
          },
        }
      : {}),
  };
}
