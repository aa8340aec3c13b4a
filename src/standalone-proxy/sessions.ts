import { randomBytes } from 'node:crypto';
import type { ProxySession } from '../proxy/session.js';
import { ProxyHttpError } from '../proxy/http/http-error.js';
import type { SessionFactory, SessionResolver } from '../proxy/types.js';

/** What `--open` accepts as a rollout id: printable ASCII without spaces. */
const OPEN_TOKEN = /^[\x21-\x7e]{1,256}$/;

export interface StandaloneSessionOptions {
  /** Recorded as every session's run id. */
  runId: string;
  /**
   * Accept any token as a session whose rollout id is the token itself (quick data collection;
   * no isolation between whoever shares a token, and the token lands in the records).
   */
  open: boolean;
  /** Secrets that must never become sessions (the admin token). */
  reserved: readonly string[];
}

/**
 * Sessions of a proxy that runs without an orchestrator: created through `POST /control/sessions`
 * and usable as soon as they are returned, or, in open mode, any token.
 */
export class StandaloneSessions implements SessionResolver, SessionFactory {
  private readonly bySecretMap = new Map<string, ProxySession>();
  private readonly rolloutIds = new Set<string>();

  constructor(private readonly options: StandaloneSessionOptions) {}

  create(request: { rolloutId?: string; taskId?: string }): ProxySession {
    const rolloutId = request.rolloutId ?? `rollout-${randomBytes(6).toString('hex')}`;
    if (this.rolloutIds.has(rolloutId)) {
      throw new ProxyHttpError(409, `rollout ${rolloutId} already has a session on this proxy`, 'invalid_request_error', 'rollout_exists');
    }
    const created = { rolloutId, runId: this.options.runId, taskId: request.taskId ?? '', secret: randomBytes(24).toString('base64url') };
    this.bySecretMap.set(created.secret, created);
    this.rolloutIds.add(rolloutId);
    return created;
  }

  bySecret(secret: string): ProxySession | undefined {
    const created = this.bySecretMap.get(secret);
    if (created || !this.options.open) return created;
    // an open token may not write into a created session's rollout, nor be the admin token
    if (!OPEN_TOKEN.test(secret) || this.rolloutIds.has(secret) || this.options.reserved.includes(secret)) return undefined;
    return { rolloutId: secret, runId: this.options.runId, taskId: '', secret };
  }
}
