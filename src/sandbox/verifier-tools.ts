/**
 * Where every rollout container mounts the verifier's trusted tools (images/verifier-tools): statically
 * linked busybox and bash, read-only. A mount point at the root cannot be renamed, removed or covered by a
 * process without capabilities, so these paths always reach the tools as built.
 */
export const VERIFIER_TOOLS_DIR = '/.openforge-tools';
export const TRUSTED_BUSYBOX = `${VERIFIER_TOOLS_DIR}/busybox`;
export const TRUSTED_BASH = `${VERIFIER_TOOLS_DIR}/bash`;
