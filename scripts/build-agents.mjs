#!/usr/bin/env node
// Bundles each built-in agent (tsc's output under dist/in-container/agents/) into one ES module under dist/agents/,
// with the agent kit and eventsource-parser inside it: the file is copied alone into a container that
// has a Node and no node_modules (the workspace image's forge-agent, the browser container's GUI agent).
// Run by `npm run build`, after tsc.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Entry (tsc's output) → bundle. The names are what the harnesses and the workspace image read. */
const AGENTS = {
  'dist/in-container/agents/forge-agent.js': 'dist/agents/forge-agent.mjs',
  'dist/in-container/agents/forge-gui-agent.js': 'dist/agents/forge-gui-agent.mjs',
};

for (const [entry, bundle] of Object.entries(AGENTS)) {
  const input = path.join(root, entry);
  if (!existsSync(input)) {
    console.error(`build-agents: ${entry} is missing: run tsc -p tsconfig.json first`);
    process.exit(1);
  }
  const build = await rolldown({ input, platform: 'node', logLevel: 'warn' });
  // Node 18 (Debian bookworm's, which a task image may have alone) runs ES2022
  await build.write({ file: path.join(root, bundle), format: 'esm', sourcemap: false });
  await build.close();
}
