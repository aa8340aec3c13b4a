import { randomBytes } from 'node:crypto';

export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
