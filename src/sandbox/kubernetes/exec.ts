import { Readable, type Writable } from 'node:stream';
import { Exec, type KubeConfig, type V1Status } from '@kubernetes/client-node';
import type WebSocket from 'isomorphic-ws';
import { errorMessage } from '../../util/errors.js';
import { CommandNotStartedError } from '../command-not-started.js';

export interface PodTarget {
  namespace: string;
  pod: string;
  container: string;
}

export interface PodExecIo {
  stdin?: Buffer;
  stdout: Writable;
  stderr: Writable;
  /** The host gives up on the stream (and reports it) after this long. */
  hostTimeoutMs?: number;
}

/**
 * Runs a command in a pod through the API server's exec subresource (a WebSocket speaking
 * v5.channel.k8s.io, whose close frame ends stdin without ending the session), and returns its exit
 * code from the status channel.
 */
export async function execInPod(kc: KubeConfig, target: PodTarget, command: string[], io: PodExecIo): Promise<{ exitCode: number; hostTimedOut: boolean }> {
  let status: V1Status | undefined;
  const stdin = io.stdin === undefined ? null : Readable.from([io.stdin]);
  let ws: WebSocket.WebSocket;
  try {
    ws = await new Exec(kc).exec(target.namespace, target.pod, target.container, command, io.stdout, io.stderr, stdin, false, (s) => {
      status = s;
    });
  } catch (err) {
    // the WebSocket was never opened: the API server refused or did not answer, and nothing ran in the pod
    throw new CommandNotStartedError(`exec in pod ${target.pod} did not start: ${upgradeFailure(err)}`);
  }
  let hostTimedOut = false;
  await new Promise<void>((resolve) => {
    const guard = io.hostTimeoutMs
      ? setTimeout(() => {
          hostTimedOut = true;
          ws.terminate();
        }, io.hostTimeoutMs)
      : undefined;
    const done = () => {
      if (guard) clearTimeout(guard);
      resolve();
    };
    if (ws.readyState === ws.CLOSED) done();
    ws.on('close', done);
    ws.on('error', done);
  });
  if (hostTimedOut) return { exitCode: 137, hostTimedOut };
  return { exitCode: exitCodeOf(status, target), hostTimedOut };
}

/** What a failed WebSocket open says: the client rejects with the socket's error event, not an Error. */
function upgradeFailure(err: unknown): string {
  const event = err as { message?: unknown; error?: unknown } | null;
  if (typeof event?.message === 'string' && event.message) return event.message;
  return errorMessage(event?.error ?? err);
}

/** The exit code a status-channel message carries: Success is 0, NonZeroExitCode names it in a cause. */
export function exitCodeOf(status: V1Status | undefined, target: PodTarget): number {
  if (!status) throw new Error(`exec in pod ${target.pod} ended without an exit status (the pod or its container went away)`);
  if (status.status === 'Success') return 0;
  const code = status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message;
  if (status.reason === 'NonZeroExitCode' && code !== undefined && /^\d+$/.test(code)) return Number(code);
  throw new Error(`exec in pod ${target.pod} failed: ${status.message ?? status.reason ?? JSON.stringify(status)}`);
}
