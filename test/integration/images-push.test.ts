import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { imagesCommand } from '../../src/cli/commands/images.js';
import type { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { UserError } from '../../src/util/errors.js';
import { workspaceImage } from '../helpers/docker.js';
import { captureStdout } from '../helpers/stdout.js';

/**
 * No image registry can run here (no registry image, no internet), so the push is exercised up to the
 * engine's own error: tagging is real and checked, the push reaches the engine, which fails to connect.
 */
const REGISTRY = `localhost:${59000 + (process.pid % 900)}`;
let backend: DockerBackend;
let image: string;

beforeAll(async () => {
  // the helper's workspace image is built without an extra CA, which is part of the workspace tag
  vi.stubEnv('OPENFORGE_EXTRA_CA', '');
  ({ backend, image } = await workspaceImage());
});

afterAll(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await backend.docker
    .getImage(`${REGISTRY}/${image}`)
    .remove({ noprune: true })
    .catch(() => undefined);
});

async function push(args: string[]): Promise<unknown> {
  captureStdout();
  try {
    await imagesCommand().parseAsync(['push', ...args, '--quiet'], { from: 'user' });
    return undefined;
  } catch (err) {
    return err;
  } finally {
    vi.restoreAllMocks();
  }
}

describe('openforge images push', () => {
  it("tags the image under the registry and reports the engine's push failure naming the image and the fix", async () => {
    const err = await push(['--registry', REGISTRY]);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(new RegExp(`pushing ${REGISTRY}/openforge/workspace:[0-9a-f]{16} failed: .+`));
    expect((err as Error).message).toContain(`docker login ${REGISTRY}`);
    const tagged = await backend.docker.getImage(`${REGISTRY}/${image}`).inspect();
    const original = await backend.docker.getImage(image).inspect();
    expect(tagged.Id).toBe(original.Id);
  }, 300_000);

  it('refuses a registry without a host before tagging anything', async () => {
    const err = await push(['--registry', 'team']);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/--registry: "team" names no registry host/);
    await expect(backend.docker.getImage(`team/${image}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 300_000);
});
