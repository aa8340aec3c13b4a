import { helperModel } from '../helper-model.js';
import { HARNESS_HOME, harnessModule } from '../layer.js';
import type { Harness, HarnessContext } from '../types.js';

const LAYER = 'claude-code';
const CONFIG_DIR = `${HARNESS_HOME}/.claude`;

/**
 * Claude Code (@anthropic-ai/claude-code, pinned in images/harness-claude-code/), the native binary its
 * platform package installs, speaking Anthropic Messages to the proxy. Every model alias points at the
 * proxy: the main and sub-agent models at the policy name, the small/fast (haiku) model at the helper
 * alias, so titles and summaries are labelled helper.
 */
export const claudeCode: Harness = {
  name: 'claude-code',
  usesModel: true,
  layer: LAYER,
  minMemoryMb: 1024,
  setup: (ctx) => ({ files: [], env: env(ctx), copies: [] }),
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
  };
}
