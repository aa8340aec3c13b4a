import { Command } from 'commander';
import { stringify } from 'yaml';
import { loadRunConfig } from '../../config/run.js';
import { renderRun, RENDERED_OWNER_UID } from '../../rollout/render-kubernetes.js';

/** `openforge k8s …`: what a run does on a cluster. */
export function k8sCommand(): Command {
  const k8s = new Command('k8s').description('Kubernetes backend: inspect what a run would create on a cluster');
  k8s
    .command('render')
    .description('print every manifest a run would create (multi-document YAML), without contacting the cluster or building images')
    .argument('<run.yaml>', 'a run config with backend: kubernetes')
    .option('--run-id <id>', 'the run id to render with', 'run-rendered')
    .action((file: string, opts: { runId: string }) => {
      const objects = renderRun(loadRunConfig(file), opts.runId);
      const header = [
        `# ${objects.length} objects a run of ${file} creates (run id ${opts.runId}).`,
        `# Pods and the NetworkPolicy are owned by the run's ConfigMap; the API server gives it a uid at`,
        `# creation, shown here as ${RENDERED_OWNER_UID}.`,
      ].join('\n');
      process.stdout.write(`${header}\n${objects.map((o) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n')}`);
    });
  return k8s;
}
