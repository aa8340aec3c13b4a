import { expect } from 'vitest';
import { imageRefs } from '../../src/trajectory/images.js';
import { explain, toolNamesCalled, type HarnessRolloutRecord } from './harness-run.js';

/**
 * A real harness on a GUI task acted through the env server's MCP tools only (`<prefix><tool>` for each tool
 * name given). Codex may send its first turn before its MCP servers are listed: the oracle then waits through
 * its shell, so up to three `exec_command` calls are allowed beside them.
 */
export function expectEnvToolsOnly(r: HarnessRolloutRecord, prefix: string, tools: readonly string[]): void {
  const all = toolNamesCalled(r.calls);
  const called = all.filter((name) => name !== 'exec_command');
  expect(all.length - called.length, explain(r)).toBeLessThanOrEqual(3);
  expect(called.length, explain(r)).toBeGreaterThan(2);
  for (const name of called) expect(name, explain(r)).toMatch(new RegExp(`^${prefix}(${tools.join('|')})$`));
}

/** The rollout's last policy call carries one recorded screenshot per MCP tool result before it. */
export function expectScreenshotPerToolResult(r: HarnessRolloutRecord): void {
  const last = r.calls.filter((c) => c.label === 'policy').at(-1)!;
  const images = imageRefs(last.request, last.protocol)?.images ?? [];
  const mcpCalls = toolNamesCalled(r.calls).filter((name) => name !== 'exec_command').length;
  expect(images.length, explain(r)).toBe(mcpCalls);
  for (const image of images) expect(image.url_or_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
}
