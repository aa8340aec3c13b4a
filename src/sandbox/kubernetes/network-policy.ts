import type { V1NetworkPolicy, V1OwnerReference } from '@kubernetes/client-node';
import { LABEL_RUN } from '../labels.js';
import type { NetworkMode } from '../types.js';
import { labelValue, runOwnerName } from './names.js';
import { MANAGED_BY } from './run-owner.js';

/**
 * The run's egress rule, the cluster form of the Docker backend's internal network: rollout pods take no
 * ingress, and reach only the proxy (`proxy-only`), nothing (`none`) or anything (`public`). The proxy
 * is an IP block, not a host name, so no DNS egress is needed.
 */
export function runNetworkPolicy(opts: {
  runId: string;
  namespace: string;
  mode: NetworkMode;
  proxy?: { host: string; port: number };
  ownerReference?: V1OwnerReference;
}): V1NetworkPolicy {
  const egress =
    opts.mode === 'public'
      ? [{}]
      : opts.mode === 'proxy-only' && opts.proxy
        ? [{ to: [{ ipBlock: { cidr: `${opts.proxy.host}/32` } }], ports: [{ protocol: 'TCP', port: opts.proxy.port }] }]
        : [];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: runOwnerName(opts.runId),
      namespace: opts.namespace,
      labels: { ...MANAGED_BY, [LABEL_RUN]: labelValue(opts.runId) },
      ownerReferences: opts.ownerReference ? [opts.ownerReference] : undefined,
    },
    spec: {
      podSelector: { matchLabels: { [LABEL_RUN]: labelValue(opts.runId) } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress,
    },
  };
}
