/** The backend (the Docker engine, the cluster's API server) stopped answering and did not come back in time. */
export class BackendUnreachableError extends Error {
  constructor(backend: string, waitedSec: number, lastError: string) {
    super(`the ${backend === 'docker' ? 'Docker engine' : 'Kubernetes API server'} has not answered for ${waitedSec} s (${lastError})`);
    this.name = 'BackendUnreachableError';
  }
}

/** How long a run waits for its backend to answer again before it stops, unless run.yaml says otherwise. */
export const DEFAULT_BACKEND_WAIT_SEC = 120;
