import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { promote } from '../../config/promote.js';
import { harnessFor } from '../../harness/registry.js';

/** `openforge promote`: the cluster config of a local run.yaml. */
export function promoteCommand(): Command {
  return new Command('promote')
    .description('write the Kubernetes config of a local run.yaml (same run, backend: kubernetes) and print what changed')
    .argument('<run.yaml>', 'the local run config')
    .requiredOption('--to <cluster.yaml>', 'the cluster config to write (its kubernetes section is kept when it exists)')
    .option('--registry <registry>', 'where `openforge images push` puts the images, e.g. registry.example.com/team or localhost:5000')
    .option('--namespace <ns>', 'namespace the rollout pods run in')
    .option('--context <name>', 'kubeconfig context')
    .option('--kubeconfig <file>', 'kubeconfig file (default $KUBECONFIG, then ~/.kube/config)')
    .option('--proxy-address <ip:port>', 'an address of this machine the pods reach the recording proxy at')
    .option('--dry-run', 'print the changes and the config without writing it')
    .action(
      (
        file: string,
        opts: { to: string; registry?: string; namespace?: string; context?: string; kubeconfig?: string; proxyAddress?: string; dryRun?: boolean },
      ) => {
        const result = promote(file, opts.to, opts);
        if (opts.dryRun) process.stdout.write(`${result.text}---\n`);
        else writeFileSync(opts.to, result.text);
        process.stdout.write(
          `${opts.dryRun ? 'would write' : 'wrote'} ${opts.to}${result.changes.length ? `, ${result.changes.length} changed key(s):` : ': no changes'}\n`,
        );
        for (const line of result.changes) process.stdout.write(`  ${line}\n`);
        const tasks = result.loaded.taskPaths.map((t) => ` --tasks ${t}`).join('');
        const harness = harnessFor(result.loaded.config).layer;
        process.stdout.write(
          `next: openforge images push --registry ${result.loaded.config.kubernetes!.images.registry}${tasks}${harness ? ` --harness ${harness}` : ''}\n` +
            `      openforge run ${opts.to}\n`,
        );
      },
    );
}
