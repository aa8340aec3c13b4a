import { UserError } from '../util/errors.js';
import { customHarness, type CustomHarnessConfig } from './custom.js';
import { claudeCode } from './claude-code/index.js';
import { codex } from './codex/index.js';
import { forgeAgent } from './forge-agent/index.js';
import { forgeGuiAgent } from './forge-gui-agent/index.js';
import { nop } from './nop.js';
import { openclaw } from './openclaw/index.js';
import { opencode } from './opencode/index.js';
import { oracle } from './oracle.js';
import { qwenCode } from './qwen-code/index.js';
import type { Harness } from './types.js';

/** Every harness run.yaml may name, besides `custom`; a new one is a folder with its adapter plus one entry here. */
const HARNESSES: Record<string, Harness> = {
  [forgeAgent.name]: forgeAgent,
  [forgeGuiAgent.name]: forgeGuiAgent,
  [oracle.name]: oracle,
  [nop.name]: nop,
  [qwenCode.name]: qwenCode,
  [openclaw.name]: openclaw,
  [claudeCode.name]: claudeCode,
  [codex.name]: codex,
  [opencode.name]: opencode,
};

/** The harness a run config names; `custom` is built from its custom_harness section. */
export function harnessFor(config: { harness: string; custom_harness?: CustomHarnessConfig }): Harness {
  if (config.harness === 'custom') {
    if (!config.custom_harness) throw new UserError('harness "custom" needs a custom_harness section in run.yaml');
    return customHarness(config.custom_harness);
  }
  return getHarness(config.harness);
}

export function getHarness(name: string): Harness {
  if (name === 'custom') throw new UserError('harness "custom" is configured in run.yaml (custom_harness section), not by name alone');
  const h = HARNESSES[name];
  if (!h) throw new UserError(`unknown harness "${name}"`, `use one of: ${Object.keys(HARNESSES).join(', ')}`);
  return h;
}

/** What run.yaml's `harness` may be: every registered harness, and `custom`. */
export function harnessNames(): string[] {
  return [...Object.keys(HARNESSES), 'custom'];
}
