import type { V1ConfigMap, V1OwnerReference } from '@kubernetes/client-node';
import { LABEL_OWNER, LABEL_RUN } from '../labels.js';
import { labelValue, runOwnerName } from './names.js';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'openforge' };

/**
 * One ConfigMap per run owns every pod and NetworkPolicy of the run (ownerReferences): deleting it has
 * the API server's garbage collector delete them, even when the orchestrator that made them is gone.
 * The owning process is an annotation (its form, host:pid:start, is not a valid label value).
 */
export function runOwnerConfigMap(runId: string, namespace: string, owner: string): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: runOwnerName(runId),
      namespace,
      labels: { ...MANAGED_BY, [LABEL_RUN]: labelValue(runId) },
      annotations: { [LABEL_OWNER]: owner, [LABEL_RUN]: runId },
    },
    data: { run: runId },
  };
}

export function ownedBy(runId: string, uid: string): V1OwnerReference {
  return { apiVersion: 'v1', kind: 'ConfigMap', name: runOwnerName(runId), uid };
}
