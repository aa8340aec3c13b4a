import { guiKind } from '../../config/task.js';
import { RolloutError } from '../../util/errors.js';
import { AGENT_NODE, agentBundle } from '../agent-bundle.js';
import type { Harness } from '../types.js';

/** Where the compiled agent is written in the browser container; it runs on the agent layer's Node. */
export const GUI_AGENT_PATH = '/opt/openforge/forge-gui-agent.mjs';
/** Screenshots kept in the prompt (older ones become a text note). */
export const KEEP_SCREENSHOTS = 3;

/**
 * The built-in GUI harness: a screenshot → computer-tool → env-server loop (agent.ts), for browser and
 * desktop tasks (task.toml `[environment] kind = "browser"` or `"desktop"`: both env servers take the same /step). The agent file is written into each container at
 * setup, so the browser image needs no rebuild when the agent changes.
 */
export const forgeGuiAgent: Harness = {
  name: 'forge-gui-agent',
  usesModel: true,
  agentNode: true,
  setup: (ctx) => {
    if (!guiKind(ctx.task)) {
      throw new RolloutError('harness_crash', `forge-gui-agent drives a browser or a desktop, but task ${ctx.task.id} is a workspace task`);
    }
    return {
      files: [{ path: GUI_AGENT_PATH, content: agentBundle('forge-gui-agent'), mode: 0o755 }],
      env: {
        OPENAI_BASE_URL: ctx.proxyBaseUrl,
        OPENAI_API_KEY: ctx.secret,
        OPENAI_MODEL: ctx.model,
        ...(ctx.environmentToken ? { OPENFORGE_ENV_TOKEN: ctx.environmentToken } : {}),
      },
      copies: [],
    };
  },
  command: (ctx) => [
    AGENT_NODE,
    GUI_AGENT_PATH,
    '--instruction-file',
    ctx.instructionPath,
    '--max-turns',
    String(ctx.maxTurns),
    '--keep-screenshots',
    String(KEEP_SCREENSHOTS),
    '--transcript',
    '/logs/agent/transcript.jsonl',
    '--answer-file',
    '/logs/agent/answer.txt',
  ],
  transcriptPaths: ['/logs/agent/transcript.jsonl', '/logs/agent/answer.txt'],
};
