/**
 * Where a harness layer lives inside a rollout container: images/harness/Dockerfile installs
 * images/harness-<name>/package-lock.json into HARNESS_ROOT/<name>, together with the Node it runs on,
 * and the backend mounts that install there read-only.
 */
export const HARNESS_ROOT = '/opt/harness';

export function harnessRoot(layer: string): string {
  return `${HARNESS_ROOT}/${layer}`;
}

/**
 * Where the built-in agents' Node layer (images/agent-node) is mounted read-only in a rollout container of
 * forge-agent or forge-gui-agent: `${AGENT_NODE_DIR}/bin/node`.
 */
export const AGENT_NODE_DIR = '/opt/openforge-node';
