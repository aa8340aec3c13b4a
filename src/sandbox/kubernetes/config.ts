import { z } from 'zod';
import { registryProblem } from './image-refs.js';
import { parseQuantity, QUANTITY_HELP } from './quantity.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

const Quantity = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const text = String(v);
  if (parseQuantity(text) === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not ${QUANTITY_HELP}` });
    return z.NEVER;
  }
  return text;
});

const QuantityMap = z.strictObject({ cpu: Quantity.optional(), memory: Quantity.optional(), 'ephemeral-storage': Quantity.optional() });

const Toleration = z.strictObject({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.number().int().optional(),
});

/**
 * The `kubernetes:` section of run.yaml (used with `backend: kubernetes`). Quantities, names and the
 * registry are checked here, so nothing the API server would reject reaches it.
 */
export const KubernetesSectionSchema = z
  .strictObject({
    kubeconfig: z.string().min(1).optional().describe('Kubeconfig file; default $KUBECONFIG, then ~/.kube/config. Relative to the run.yaml.'),
    context: z.string().min(1).optional().describe('Context in the kubeconfig; default its current-context.'),
    namespace: z.string().regex(DNS_LABEL, 'a DNS label: lower-case letters, digits and "-"').max(63).default('default'),
    images: z.strictObject({
      registry: z
        .string()
        .min(1)
        .superRefine((r, ctx) => {
          const problem = registryProblem(r);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .describe('The prefix `openforge images push --registry` pushed the images under.'),
      pull_policy: z.enum(['IfNotPresent', 'Always', 'Never']).default('IfNotPresent'),
      pull_secrets: z.array(z.string().regex(DNS_LABEL)).default([]),
    }),
    resources: z
      .strictObject({ requests: QuantityMap.optional(), limits: QuantityMap.optional() })
      .default({})
      .describe("Requests/limits of each rollout pod; limits default to the run's `resources` (cpus, memory_mb)."),
    node_selector: z.record(z.string(), z.string()).default({}),
    tolerations: z.array(Toleration).default([]),
    runtime_class: z.string().regex(DNS_LABEL).optional().describe('A RuntimeClass for stronger isolation, e.g. gvisor or kata.'),
    max_pods: z.number().int().min(1).max(10_000).default(16).describe('At most this many rollout pods at once, whatever `concurrency` says.'),
    run_as_user: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Run rollouts as this non-root uid (the project's images run as root by default: graders write /logs)."),
    harness_install: z
      .enum(['init-container', 'image-volume'])
      .default('init-container')
      .describe('How a harness install reaches the pod: copied by an init container, or mounted as an image volume (K8s ≥ 1.33 with ImageVolume).'),
    proxy: z
      .strictObject({
        address: z.string().superRefine((a, ctx) => {
          const [host, port] = a.split(/:(?=\d+$)/);
          const ip = IPV4.exec(host ?? '');
          if (!ip || ip.slice(1).some((o) => Number(o) > 255) || !port || Number(port) < 1 || Number(port) > 65535) {
            ctx.addIssue({
              code: 'custom',
              message: `"${a}" is not IPv4:port (a NetworkPolicy allows egress to an IP block, not a host name), e.g. 172.18.0.1:8080`,
            });
          }
        }),
      })
      .describe("The address (IPv4:port) rollout pods reach the orchestrator's recording proxy at; the proxy binds it."),
  })
  .superRefine((k, ctx) => {
    for (const what of ['cpu', 'memory'] as const) {
      const request = k.resources.requests?.[what];
      const limit = k.resources.limits?.[what];
      if (request && limit && parseQuantity(request)! > parseQuantity(limit)!) {
        ctx.addIssue({
          code: 'custom',
          path: ['resources', 'requests', what],
          message: `request ${request} is above the limit ${limit}; Kubernetes rejects such a pod`,
        });
      }
    }
  });

export type KubernetesSection = z.infer<typeof KubernetesSectionSchema>;

export function proxyAddress(section: KubernetesSection): { host: string; port: number } {
  const [host, port] = section.proxy.address.split(/:(?=\d+$)/);
  return { host: host!, port: Number(port) };
}
