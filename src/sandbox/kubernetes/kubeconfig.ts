import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { UserError, errorMessage } from '../../util/errors.js';
import type { KubernetesSection } from './config.js';

/** The kubeconfig and context a run uses, checked so a wrong one is named before anything is created. */
export function loadKubeConfig(settings: Pick<KubernetesSection, 'kubeconfig' | 'context'>): KubeConfig {
  const file = settings.kubeconfig ?? process.env.KUBECONFIG?.split(path.delimiter).find(Boolean) ?? path.join(os.homedir(), '.kube', 'config');
  const key = settings.kubeconfig ? 'kubernetes.kubeconfig' : process.env.KUBECONFIG ? '$KUBECONFIG' : 'the default kubeconfig';
  if (!existsSync(file)) {
    throw new UserError(
      `${key}: ${file} does not exist`,
      "set kubernetes.kubeconfig (or $KUBECONFIG) to your cluster's kubeconfig, e.g. `kind get kubeconfig --name openforge > kind.kubeconfig`",
    );
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (err) {
    throw new UserError(`${key}: ${file} is not a valid kubeconfig: ${errorMessage(err)}`);
  }
  const contexts = kc.getContexts().map((c) => c.name);
  if (settings.context) {
    if (!contexts.includes(settings.context)) {
      throw new UserError(
        `kubernetes.context: no context "${settings.context}" in ${file}`,
        contexts.length ? `use one of: ${contexts.join(', ')}` : 'the file defines no contexts',
      );
    }
    kc.setCurrentContext(settings.context);
  } else if (!kc.getCurrentContext() || !contexts.includes(kc.getCurrentContext())) {
    throw new UserError(`${file} has no current-context`, `set kubernetes.context to one of: ${contexts.join(', ') || '(none defined)'}`);
  }
  if (!kc.getCurrentCluster()) throw new UserError(`context "${kc.getCurrentContext()}" in ${file} names no cluster`);
  return kc;
}
