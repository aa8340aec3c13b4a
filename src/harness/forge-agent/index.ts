import { AGENT_NODE, agentBundle } from '../agent-bundle.js';
import type { Harness } from '../types.js';

/** Where the bundled agent is written in the container at setup. */
export const AGENT_PATH = '/opt/openforge/forge-agent.mjs';

/**
 * The built-in reference harness: one bundled file written into the container at setup, run on the Node of
 * the read-only agent layer, so it works in any task image (a bare Debian, python:3.13-slim, ubuntu:24.04).
 */
export const forgeAgent: Harness = {
  name: 'forge-agent',
  usesModel: true,
  agentNode: true,
  setup: (ctx) => ({
    files: [{ path: AGENT_PATH, content: agentBundle('forge-agent'), mode: 0o755 }],
    env: { OPENAI_BASE_URL: ctx.proxyBaseUrl, OPENAI_API_KEY: ctx.secret, OPENAI_MODEL: ctx.model },
    copies: [],
  }),
  command: (ctx) => [
    AGENT_NODE,
    AGENT_PATH,
    '--instruction-file',
    ctx.instructionPath,
    '--max-turns',
    String(ctx.maxTurns),
    '--transcript',
    '/logs/agent/transcript.jsonl',
    '--workdir',
    ctx.workdir,
  ],
  transcriptPaths: ['/logs/agent/transcript.jsonl'],
};
