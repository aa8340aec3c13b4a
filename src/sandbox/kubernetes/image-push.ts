import type Docker from 'dockerode';
import { UserError, errorMessage } from '../../util/errors.js';
import { registryProblem, registryRef, splitRef } from './image-refs.js';

export interface PushedImage {
  local: string;
  remote: string;
}

/** Tags a locally built image under the registry (the reference a cluster pulls); returns that reference. */
export async function tagForRegistry(docker: Docker, localRef: string, registry: string): Promise<string> {
  const problem = registryProblem(registry);
  if (problem) throw new UserError(`--registry: ${problem}`);
  const remote = registryRef(registry, localRef);
  if (remote === localRef) return remote;
  const { repo, tag } = splitRef(remote);
  await docker.getImage(localRef).tag({ repo, tag });
  return remote;
}

/**
 * Pushes a tagged reference through the engine (which uses its own registry credentials, from
 * `docker login`). The engine reports a failed push inside the progress stream, not as an HTTP error.
 */
export async function pushImage(docker: Docker, remote: string, onProgress?: (line: string) => void): Promise<void> {
  const { repo, tag } = splitRef(remote);
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.getImage(`${repo}:${tag}`).push({ tag });
  } catch (err) {
    throw new Error(`pushing ${remote} failed: ${errorMessage(err)}`, { cause: err });
  }
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(
      stream,
      (err: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => {
        const failed = output?.find((o) => o.error || o.errorDetail);
        if (err || failed) reject(new Error(`pushing ${remote} failed: ${err ? errorMessage(err) : (failed!.errorDetail?.message ?? failed!.error)}`));
        else resolve();
      },
      (event: { status?: string; id?: string }) => {
        if (event.status && onProgress) onProgress(`${remote}: ${event.id ? `${event.id} ` : ''}${event.status}`);
      },
    ),
  );
}

/** Tags and pushes each image; stops at the first failure, naming the image. */
export async function publishImages(docker: Docker, localRefs: string[], registry: string, onLog?: (line: string) => void): Promise<PushedImage[]> {
  const pushed: PushedImage[] = [];
  for (const local of [...new Set(localRefs)]) {
    const remote = await tagForRegistry(docker, local, registry);
    onLog?.(`pushing ${remote}`);
    await pushImage(docker, remote);
    pushed.push({ local, remote });
  }
  return pushed;
}
