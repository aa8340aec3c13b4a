/**
 * Where rollout pods pull images from: the content-hash tags the local ImageBuilder makes
 * (openforge/task-x:<hash>) pushed under the user's registry (`openforge images push --registry R`).
 */

/** True when the first path component names a registry host (a dot or a port in it, or localhost), as Docker decides. */
export function hasRegistryHost(ref: string): boolean {
  const first = ref.split('/')[0]!;
  return ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
}

/** Why a registry prefix cannot be used, or undefined when it can. */
export function registryProblem(registry: string): string | undefined {
  if (!/^[a-z0-9.:/_-]+$/i.test(registry) || registry.endsWith('/') || registry.includes('//')) {
    return `"${registry}" is not a registry reference (expected host[:port][/path], e.g. registry.example.com/team or localhost:5000)`;
  }
  if (!hasRegistryHost(`${registry}/x`)) {
    return `"${registry}" names no registry host, so a cluster would look for these images on Docker Hub (add the host, e.g. registry.example.com/${registry} or localhost:5000)`;
  }
  return undefined;
}

/** The reference a cluster pulls for a locally built image; one that already names a registry is kept. */
export function registryRef(registry: string, localRef: string): string {
  if (hasRegistryHost(localRef)) return localRef;
  return `${registry.replace(/\/+$/, '')}/${localRef}`;
}

/** repo and tag of a reference, for `docker tag` / `docker push` (a digest-free reference is assumed). */
export function splitRef(ref: string): { repo: string; tag: string } {
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  if (colon > slash) return { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) };
  return { repo: ref, tag: 'latest' };
}
