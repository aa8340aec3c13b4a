import { type ActionSchemaName, type CanonicalAction, CanonicalActionSchema } from '../actions.js';
import { fromAnthropic } from './anthropic.js';
import { fromElement } from './element.js';
import { fromOpenAI } from './openai.js';
import { fromOSWorld } from './osworld.js';
import { fromPyautogui } from './pyautogui.js';
import { fromQwen25VL, fromQwen3VL } from './qwen.js';
import { ActionInputError, type TranslateContext, type Translator, isRecord } from './types.js';

export { ActionInputError, type TranslateContext } from './types.js';

const fromCanonical: Translator = (raw) => {
  const parsed = CanonicalActionSchema.safeParse(raw);
  if (parsed.success) return [parsed.data];
  const type = isRecord(raw) ? raw.type : undefined;
  const known = CanonicalActionSchema.options.map((o) => o.shape.type.value);
  if (typeof type !== 'string' || !known.includes(type as CanonicalAction['type'])) {
    throw new ActionInputError(
      'unknown_action',
      `unknown canonical action type ${JSON.stringify(type)}; use one of: ${known.join(', ')} (or set "schema" to the vocabulary you send)`,
    );
  }
  const issue = parsed.error.issues[0];
  throw new ActionInputError('bad_action', `${type}: ${issue?.path.join('.') || 'action'}: ${issue?.message ?? 'invalid'}`);
};

const TRANSLATORS: Record<ActionSchemaName, Translator> = {
  canonical: fromCanonical,
  anthropic: fromAnthropic,
  openai: fromOpenAI,
  qwen25vl: fromQwen25VL,
  qwen3vl: fromQwen3VL,
  osworld: fromOSWorld,
  pyautogui: fromPyautogui,
  element: fromElement,
};

/** One vendor action → canonical actions (throws ActionInputError naming the problem). */
export function translate(schema: ActionSchemaName, action: unknown, ctx: TranslateContext): CanonicalAction[] {
  return TRANSLATORS[schema](action, ctx);
}
