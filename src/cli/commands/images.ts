import { Command } from 'commander';
import { loadTasks } from '../../config/task.js';
import { DockerBackend } from '../../sandbox/docker/backend.js';
import { ImageBuilder } from '../../sandbox/docker/images.js';

/** The engine's image builder, with the CLI's CA and logging options. */
async function imageBuilder(opts: { extraCa?: string; quiet?: boolean }): Promise<ImageBuilder> {
  const backend = new DockerBackend();
  await backend.check();
  return new ImageBuilder(backend.docker, {
    extraCaFile: opts.extraCa ?? process.env.OPENFORGE_EXTRA_CA,
    onLog: opts.quiet ? undefined : (line) => process.stderr.write(`${line}\n`),
    verbose: !opts.quiet,
  });
}

export function imagesCommand(): Command {
  const images = new Command('images').description('build and inspect the images rollouts run in');
  images
    .command('build')
    .description('build the base (debootstrap), workspace and browser images, tagged by content hash; unchanged inputs are reused')
    .option('--extra-ca <file>', 'PEM bundle made available to builds that fetch over https (also $OPENFORGE_EXTRA_CA)')
    .option('--tasks <dir>', 'also build the images of these tasks (a suite or task folder)')
    .option('-q, --quiet', 'print only the image tags')
    .action(async (opts: { extraCa?: string; tasks?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      process.stdout.write(`base       ${await builder.ensureBase()}\n`);
      process.stdout.write(`workspace  ${await builder.ensureWorkspace()}\n`);
      process.stdout.write(`browser    ${await builder.ensureBrowser()}\n`);
      for (const task of opts.tasks ? loadTasks(opts.tasks) : []) {
        process.stdout.write(`task       ${await builder.ensureTaskImage(task)}\n`);
      }
    });
  images
    .command('harness')
    .description('build harness layers (a real harness + its Node from npm, pinned in images/harness-<name>/) and copy each into its shared volume')
    .argument('[names...]', 'harness layers to build (default: all of them)')
    .option('--extra-ca <file>', 'PEM bundle for npm over https inside the build (also $OPENFORGE_EXTRA_CA); not part of the image tag')
    .option('-q, --quiet', 'print only the image tags and volumes')
    .action(async (names: string[], opts: { extraCa?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      for (const name of names.length > 0 ? names : builder.harnessLayers()) {
        const mount = await builder.ensureHarnessVolume(name);
        process.stdout.write(`harness    ${await builder.ensureHarnessImage(name)}  volume ${mount.volume}\n`);
      }
    });
  return images;
}
