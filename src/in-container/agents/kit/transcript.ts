import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

/** An agent's event log, one JSON object a line (`ts`, `type`, then the event's fields). */
export class Transcript {
  private fd: number | null = null;

  /** No file: events go nowhere. */
  constructor(file: string | undefined) {
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    this.fd = openSync(file, 'a');
  }

  /** Written synchronously so the file is complete up to the last event even if the agent is killed. */
  event(type: string, fields: Record<string, unknown> = {}): void {
    if (this.fd === null) return;
    writeSync(this.fd, JSON.stringify({ ts: new Date().toISOString(), type, ...fields }) + '\n');
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
