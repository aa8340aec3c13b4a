import { randomBytes } from 'node:crypto';
import type { ProxySession } from '../proxy/session.js';

/** Live rollout sessions by secret; the proxy authenticates every call against it. */
export class SessionRegistry {
  private readonly bySecretMap = new Map<string, ProxySession>();

  open(session: Omit<ProxySession, 'secret'>): ProxySession {
    const full = { ...session, secret: randomBytes(18).toString('base64url') };
    this.bySecretMap.set(full.secret, full);
    return full;
  }

  close(secret: string): void {
    this.bySecretMap.delete(secret);
  }

  bySecret(secret: string): ProxySession | undefined {
    return this.bySecretMap.get(secret);
  }
}
