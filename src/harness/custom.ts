import type { CustomHarnessConfig } from '../config/run.js';
import type { Harness, HarnessContext } from './types.js';

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
