import { createHash } from 'node:crypto';

/**
 * Kubernetes names and label values have stricter rules than OpenForge ids (rollout ids carry dots and
 * task ids can be long): these turn an id into a valid one, with a hash suffix whenever anything was
 * changed or cut, so two ids never collide.
 */

const DNS_LABEL_MAX = 63;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** An RFC 1123 label (pod, ConfigMap, NetworkPolicy names): lower-case alphanumerics and '-', ≤ 63. */
export function dnsLabel(prefix: string, id: string): string {
  const clean = `${prefix}-${id}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  if (clean === `${prefix}-${id}` && clean.length <= DNS_LABEL_MAX) return clean;
  return `${clean.slice(0, DNS_LABEL_MAX - 9).replace(/-$/, '')}-${shortHash(id)}`;
}

/** A label value: alphanumerics, '-', '_', '.', starting and ending alphanumeric, ≤ 63. */
export function labelValue(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  if (clean === id && clean.length <= DNS_LABEL_MAX) return clean;
  return `${clean.slice(0, DNS_LABEL_MAX - 9).replace(/[^A-Za-z0-9]+$/, '')}-${shortHash(id)}`;
}

/** The object that owns every pod and policy of a run: deleting it lets the API server delete them. */
export function runOwnerName(runId: string): string {
  return dnsLabel('openforge-run', runId);
}

export function podName(rolloutId: string): string {
  return dnsLabel('of', rolloutId);
}
