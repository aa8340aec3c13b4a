import type { KubernetesObject } from '@kubernetes/client-node';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Pod } from 'kubernetes-models/v1/Pod';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';

/** Kinds OpenForge creates, checked against the official Kubernetes OpenAPI schemas (kubernetes-models). */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Pod': Pod as never,
  'v1/ConfigMap': ConfigMap as never,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy as never,
};

/** Throws with the schema's message when the object is not a valid manifest of its kind. */
export function validateManifest(object: KubernetesObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(structuredClone(object) as never).validate();
}
