/** Whether the proxy is refusing new model calls (while the trainer swaps the policy's weights). */
export class PauseSwitch {
  private retryAfter: number | null = null;

  get paused(): boolean {
    return this.retryAfter !== null;
  }

  /** Seconds a refused client is told to wait (`Retry-After`); null while serving. */
  get retryAfterSec(): number | null {
    return this.retryAfter;
  }

  pause(retryAfterSec: number): void {
    this.retryAfter = retryAfterSec;
  }

  resume(): void {
    this.retryAfter = null;
  }
}
