import type { z } from 'zod';
import type { SandboxBackend } from './types.js';

/**
 * A sandbox backend as run.yaml names it (`backend: <name>`), with the section of run.yaml it reads (a key
 * of the same name). `create` loads the implementation only when a run asks for it, so that commands that
 * never start a sandbox do not pay for a client library they do not use.
 */
export interface BackendPlugin<Section = unknown> {
  readonly name: string;
  /** Its run.yaml section, validated with the rest of the file; absent when it takes none. */
  readonly section?: z.ZodType<Section>;
  /** What to write when a run names the backend without its section (the section is then required). */
  readonly sectionHint?: string;
  /** Resolves the section's file paths against the run.yaml's folder, in place. */
  resolvePaths?(section: Section, dir: string): void;
  create(section: Section | undefined): Promise<SandboxBackend>;
}
