import { authorizationHeader } from '../gui-environment.js';
import { HARNESS_HOME, harnessModule, harnessNode } from '../layer.js';
import type { Harness, HarnessContext } from '../types.js';
import { helperModel } from '../helper-model.js';

const LAYER = 'qwen-code';
const QWEN_DIR = `${HARNESS_HOME}/.qwen`;

/**
 * Qwen Code (@qwen-code/qwen-code, pinned in images/harness-qwen-code/), speaking Chat Completions to the
 * proxy. Its fast model (suggestions, summaries) is a distinct alias so those calls are labelled helper. On a
 * GUI task the env server is its MCP server (`mcpServers.<kind>.httpUrl`, trusted: no confirmation asked; its tools
 * declared up front, not deferred).
 */
export const qwenCode: Harness = {
  name: 'qwen-code',
  usesModel: true,
  layer: LAYER,
  minMemoryMb: 1024,
  setup: (ctx) => ({
    files: [{ path: `${QWEN_DIR}/settings.json`, content: JSON.stringify(settings(ctx), null, 2) }],
    env: {
      HOME: HARNESS_HOME,
      OPENAI_BASE_URL: ctx.proxyBaseUrl,
      OPENAI_API_KEY: ctx.secret,
      OPENAI_MODEL: ctx.model,
      QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
      NO_COLOR: '1',
    },
    copies: [],
  }),
  command: (ctx) => [
    harnessNode(LAYER),
    harnessModule(LAYER, '@qwen-code/qwen-code/cli-entry.js'),
    '--auth-type',
    'openai',
    '--model',
    ctx.model,
    '--approval-mode',
    'yolo',
    '--output-format',
    'stream-json',
    '--max-session-turns',
    String(ctx.maxTurns),
    '--chat-recording',
    '--prompt',
    ctx.task.instruction,
  ],
  transcriptPaths: [`${QWEN_DIR}/projects`],
};

function settings(ctx: HarnessContext): unknown {
  return {
    general: { enableAutoUpdate: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { auth: { selectedType: 'openai' } },
    // Qwen Code guesses a model's input modalities from its name and replaces the images of a text-only
    // model's tool results with "[image: …]": on a GUI task the policy is shown the screenshots.
    model: { name: ctx.model, ...(ctx.environment ? { generationConfig: { modalities: { image: true } } } : {}) },
    fastModel: helperModel(ctx.model),
    tools: { approvalMode: 'yolo', sandbox: false },
    ...(ctx.environment
      ? {
          mcpServers: {
            [ctx.environment.kind]: {
              httpUrl: ctx.environment.mcpUrl,
              headers: authorizationHeader(ctx.environment),
              trust: true,
              timeout: 120_000,
              // Qwen Code otherwise defers MCP tools behind its tool_search / tool_call bridge: the model would see
              // neither the env server's tools nor their screenshots until it searched for them.
              alwaysLoadTools: true,
            },
          },
        }
      : {}),
  };
}
