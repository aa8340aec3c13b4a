import type { Harness } from '../types.js';

const IMAGE_NODE = '/opt/openforge/node/bin/node';

/** The built-in reference harness, installed in the workspace image at /opt/openforge/forge-agent.mjs. */
export const forgeAgent: Harness = {
  name: 'forge-agent',
  usesModel: true,
  setup: (ctx) => ({
    files: [],
    env: { OPENAI_BASE_URL: ctx.proxyBaseUrl, OPENAI_API_KEY: ctx.secret, OPENAI_MODEL: ctx.model },
    copies: [],
  }),
  command: (ctx) => [
    'sh',
    '-c',
    // the workspace image's own Node when there (it starts ~3× faster than Debian's); a task image on another base may have only `node`
    `N=${IMAGE_NODE}; [ -x "$N" ] || N=node; exec "$N" "$@"`,
    'sh',
    '/opt/openforge/forge-agent.mjs',
    '--instruction-file',
    ctx.instructionPath,
    '--max-turns',
    String(ctx.maxTurns),
    '--transcript',
    '/logs/agent/transcript.jsonl',
    '--workdir',
    '/workspace',
  ],
  transcriptPaths: ['/logs/agent/transcript.jsonl'],
};
