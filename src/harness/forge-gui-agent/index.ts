import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { guiKind } from '../../config/task.js';
import { RolloutError, UserError } from '../../util/errors.js';
import { packageRoot } from '../../util/paths.js';
import type { Harness } from '../types.js';

/** Where the compiled agent is written in the browser container; it runs on the image's Node (≥ 20). */
export const GUI_AGENT_PATH = '/opt/openforge/forge-gui-agent.mjs';
/** Screenshots kept in the prompt (older ones become a text note). */
export const KEEP_SCREENSHOTS = 3;

let compiled: Buffer | undefined;

/** The bundled agent (scripts/build-agents.mjs): one file is all it needs. */
function compiledAgent(): Buffer {
  if (compiled) return compiled;
  const file = path.join(packageRoot(), 'dist/agents/forge-gui-agent.mjs');
  if (!existsSync(file)) throw new UserError(`${file} is missing`, 'run `npm run build` first');
  return (compiled = readFileSync(file));
}

/**
 * The built-in GUI harness: a screenshot → computer-tool → env-server loop (agent.ts), for browser and
 * desktop tasks (task.toml `[environment] kind = "browser"` or `"desktop"`: both env servers take the same /step). The agent file is written into each container at
 * setup, so the browser image needs no rebuild when the agent changes.
 */
export const forgeGuiAgent: Harness = {
  name: 'forge-gui-agent',
  usesModel: true,
  setup: (ctx) => {
    if (!guiKind(ctx.task)) {
      throw new RolloutError('harness_crash', `forge-gui-agent drives a browser or a desktop, but task ${ctx.task.id} is a workspace task`);
    }
    return {
      files: [{ path: GUI_AGENT_PATH, content: compiledAgent(), mode: 0o755 }],
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
    'node',
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
