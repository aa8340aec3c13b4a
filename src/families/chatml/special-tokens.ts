/**
 * Special tokens of the simulated model, Qwen-style. Their ids are fixed and small; text tokens
 * start at TEXT_ID_OFFSET, so ids below it that are not listed here are never produced.
 */
export const END_OF_TEXT_ID = 0;
export const IM_START_ID = 1;
export const IM_END_ID = 2;
export const TOOL_CALL_START_ID = 3;
export const TOOL_CALL_END_ID = 4;
export const THINK_START_ID = 5;
export const THINK_END_ID = 6;
export const VISION_START_ID = 7;
export const IMAGE_PAD_ID = 8;
export const VISION_END_ID = 9;

export const SPECIAL_TOKENS: readonly string[] = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<tool_call>',
  '</tool_call>',
  '<think>',
  '</think>',
  '<|vision_start|>',
  '<|image_pad|>',
  '<|vision_end|>',
];

/** Room for more special tokens without renumbering text tokens. */
export const TEXT_ID_OFFSET = 32;

export function isSpecialId(id: number): boolean {
  return Number.isInteger(id) && id >= 0 && id < SPECIAL_TOKENS.length;
}
