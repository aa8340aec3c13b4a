/** Calls still being answered, so that closing the proxy can let them finish first. */
export class InFlightCalls {
  private readonly calls = new Set<Promise<unknown>>();

  get size(): number {
    return this.calls.size;
  }

  track<T>(call: Promise<T>): Promise<T> {
    this.calls.add(call);
    const forget = () => this.calls.delete(call);
    call.then(forget, forget);
    return call;
  }

  /**
   * Resolves when every tracked call has settled, or after `timeoutMs`, whichever is first; true
   * when nothing is left in flight.
   */
  async settled(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const all = (async () => {
      while (this.calls.size > 0) await Promise.allSettled(this.calls);
    })();
    await Promise.race([all, timeout]);
    clearTimeout(timer);
    return this.calls.size === 0;
  }
}
