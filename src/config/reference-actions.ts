import { readFileSync } from 'node:fs';
import { CanonicalActionSchema, type CanonicalAction } from '../in-container/browser-env/actions.js';

/** A reference actions file that cannot be replayed: the message names the file and what is wrong in it. */
export class ReferenceActionsError extends Error {}

/** A reference actions file (a task's solution/actions.json): a JSON list of canonical actions, or { "actions": [...] }. */
export function readActionsFile(file: string): CanonicalAction[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ReferenceActionsError(`${file}: invalid JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { actions?: unknown } | null)?.actions;
  if (!Array.isArray(list))
    throw new ReferenceActionsError(`${file}: not a list of actions (expected a JSON list of canonical actions, or { "actions": [...] })`);
  return list.map((action, i) => {
    const parsed = CanonicalActionSchema.safeParse(action);
    if (!parsed.success)
      throw new ReferenceActionsError(`${file}: action ${i + 1} (${JSON.stringify(action)}) is not a canonical action: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
}
