import { z } from 'zod';
import type { Harness, HarnessContext } from './types.js';

/**
 * `harness: custom`: a user-supplied harness binary (ZeroClaw, an in-house agent, …). Placeholders in
 * `command` and `env`: {base_url} (the proxy, …/v1), {api_key} (the rollout's secret), {model},
 * {instruction_file}, {max_turns}.
 */
export const CustomHarnessSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    .describe("The harness's name, recorded with its rollouts."),
  install_dir: z.string().min(1).optional().describe('A host folder (relative to the run.yaml) copied to /opt/harness/<name> in every rollout container.'),
  command: z.array(z.string()).min(1).describe('The headless command, run directly (wrap it in `bash -c` for shell syntax); placeholders are filled in.'),
  env: z.record(z.string(), z.string()).default({}).describe('Its environment; placeholders are filled in.'),
  transcripts: z.array(z.string().startsWith('/')).default([]).describe("Sandbox paths collected into the rollout's artifacts."),
  uses_model: z.boolean().default(true).describe('False for a harness that makes no model call (no proxy session is opened).'),
  min_memory_mb: z.number().int().min(64).optional().describe("A floor under the run's `resources.memory_mb` for its containers."),
});
export type CustomHarnessConfig = z.infer<typeof CustomHarnessSchema>;

/** Where a custom harness's install folder is copied in the container. */
export function customInstallDir(name: string): string {
  return `/opt/harness/${name}`;
}

function fill(template: string, ctx: HarnessContext): string {
  const values: Record<string, string> = {
    base_url: ctx.proxyBaseUrl,
    api_key: ctx.secret,
    model: ctx.model,
    instruction_file: ctx.instructionPath,
    max_turns: String(ctx.maxTurns),
  };
  return template.replace(/\{(base_url|api_key|model|instruction_file|max_turns)\}/g, (_m, key: string) => values[key]!);
}

/**
 * The adapter hook for a harness OpenForge does not ship (ZeroClaw is not on npm; in-house agents):
 * run.yaml names its binary folder, command, environment and transcripts, and it runs like the others.
 */
export function customHarness(spec: CustomHarnessConfig): Harness {
  return {
    name: spec.name,
    usesModel: spec.uses_model,
    minMemoryMb: spec.min_memory_mb,
    // A command or env that does not take {max_turns} leaves the limit to the proxy.
    maxTurnsAtProxy: ![...spec.command, ...Object.values(spec.env)].some((part) => part.includes('{max_turns}')),
    transcriptPaths: spec.transcripts,
    setup: (ctx) => ({
      files: [],
      env: Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, fill(v, ctx)])),
      copies: spec.install_dir ? [{ hostDir: spec.install_dir, sandboxDir: customInstallDir(spec.name) }] : [],
    }),
    command: (ctx) => spec.command.map((part) => fill(part, ctx)),
  };
}
