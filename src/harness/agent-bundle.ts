import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_NODE_DIR } from '../sandbox/harness-layer.js';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';

/** The Node of the built-in agents' read-only layer (images/agent-node), whatever the task image holds. */
export const AGENT_NODE = `${AGENT_NODE_DIR}/bin/node`;

const bundles = new Map<string, Buffer>();

/** A built-in agent bundled into one file by scripts/build-agents.mjs (dist/agents/<name>.mjs). */
export function agentBundle(name: 'forge-agent' | 'forge-gui-agent'): Buffer {
  let bundle = bundles.get(name);
  if (bundle) return bundle;
  const file = path.join(packageRoot(), 'dist/agents', `${name}.mjs`);
  if (!existsSync(file)) throw new UserError(`${file} is missing`, 'run `npm run build` first');
  bundle = readFileSync(file);
  bundles.set(name, bundle);
  return bundle;
}
