import { createHash, randomBytes } from 'node:crypto';

/**
 * Identifiers the Anthropic side sees, derived from the upstream's so the same upstream answer
 * always maps to the same ids, and mapped back when the harness echoes them.
 */

const ID_SAFE = /^[A-Za-z0-9_-]+$/;
const TOOL_PREFIX = 'toolu_';

/** `chatcmpl-abc` → `msg_abc`; a fresh id when the upstream sent none. */
export function anthropicMessageId(upstreamId: string | undefined): string {
  const core = upstreamId?.replace(/^chatcmpl-/, '');
  if (core && ID_SAFE.test(core)) return `msg_${core}`;
  return `msg_${upstreamId ? digest(upstreamId).slice(0, 24) : randomBytes(12).toString('hex')}`;
}

/**
 * `call_abc` → `toolu_call_abc`. Anthropic ids match [A-Za-z0-9_-]+, so an upstream id with other
 * characters is hashed; one the upstream did not send is derived from the message id and position.
 */
export function anthropicToolUseId(upstreamCallId: string | undefined, messageId: string, index: number): string {
  if (upstreamCallId && ID_SAFE.test(upstreamCallId)) return `${TOOL_PREFIX}${upstreamCallId}`;
  return `${TOOL_PREFIX}${digest(upstreamCallId ?? `${messageId}#${index}`).slice(0, 24)}`;
}

/** The inverse of `anthropicToolUseId` for ids the proxy minted, so the upstream sees its own ids in the history. */
export function chatToolCallId(toolUseId: string): string {
  return toolUseId.startsWith(TOOL_PREFIX) && toolUseId.length > TOOL_PREFIX.length ? toolUseId.slice(TOOL_PREFIX.length) : toolUseId;
}

/**
 * Anthropic clients expect every thinking block to carry a signature and send it back unchanged.
 * The upstream cannot sign, so the proxy signs with a hash of the text: deterministic, checkable,
 * and ignored on the way back (the text is what the upstream needs).
 */
export class ThinkingSignature {
  private readonly hash = createHash('sha256').update('openforge-thinking\n');

  add(text: string): void {
    this.hash.update(text);
  }

  value(): string {
    return `openforge-${this.hash.digest('base64url')}`;
  }

  static of(text: string): string {
    const signature = new ThinkingSignature();
    signature.add(text);
    return signature.value();
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
