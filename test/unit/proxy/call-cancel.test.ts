import { describe, expect, it } from 'vitest';
import { CallCancel } from '../../../src/proxy/calls/call-cancel.js';
import { sleep } from '../../../src/proxy/upstream/retry.js';

describe("a call's cancellation", () => {
  it('runs each listener once, in the order added, with the reason set, and none removed or added after the abort', () => {
    const cancel = new CallCancel();
    const heard: string[] = [];
    const removed = () => heard.push('removed');
    cancel.addEventListener('abort', () => heard.push(`first: ${(cancel.reason as Error).message}`));
    cancel.addEventListener('abort', removed);
    cancel.addEventListener('abort', () => heard.push(`second, aborted ${cancel.aborted}`));
    cancel.removeEventListener('abort', removed);
    expect(cancel.aborted).toBe(false);

    cancel.abort(new Error('client disconnected'));
    cancel.abort(new Error('again'));
    cancel.addEventListener('abort', () => heard.push('late'));

    expect(heard).toEqual(['first: client disconnected', 'second, aborted true']);
    expect((cancel.reason as Error).message).toBe('client disconnected');
  });

  it('cuts short a retry back-off, as an AbortSignal does', async () => {
    const cancel = new CallCancel();
    const waiting = sleep(60_000, cancel);
    cancel.abort(new Error('client disconnected'));
    await expect(waiting).rejects.toThrow('client disconnected');
    await expect(sleep(60_000, cancel)).rejects.toThrow('client disconnected');

    const controller = new AbortController();
    const real = sleep(60_000, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(real).rejects.toThrow('stopped');
  });
});
