/**
 * Where a harness layer lives inside a rollout container: images/harness/Dockerfile installs
 * images/harness-<name>/package-lock.json into HARNESS_ROOT/<name>, together with the Node it runs on,
 * and the backend mounts that install there read-only.
 */
export const HARNESS_ROOT = '/opt/harness';

export function harnessRoot(layer: string): string {
  return `${HARNESS_ROOT}/${layer}`;
}
