import { IMAGE_PAD_ID, VISION_END_ID, VISION_START_ID } from '../families/chatml/special-tokens.js';
import { CorruptCallError } from './trajectory-call.js';
import type { RequestImage } from './images.js';
import type { SampleImage } from './types.js';

/** An image placeholder's tokens in one tokenizer: `start`, one or more `pad`, `end`. */
interface PlaceholderTokens {
  tokenizer: string;
  start: number;
  pad: number;
  end: number;
}

/**
 * The placeholders recognised in token ids: the sim's ChatML, and Qwen's vision tokens (`<|vision_start|>`,
 * `<|image_pad|>` × the image's patches, `<|vision_end|>`), shared by Qwen2-VL, Qwen2.5-VL, Qwen3-VL and the Qwen3
 * tokenizer. A run of these three kinds of tokens is specific enough to be read without knowing the tokenizer.
 */
export const PLACEHOLDERS: readonly PlaceholderTokens[] = [
  { tokenizer: "the sim's ChatML", start: VISION_START_ID, pad: IMAGE_PAD_ID, end: VISION_END_ID },
  { tokenizer: 'Qwen2/2.5/3-VL', start: 151652, pad: 151655, end: 151653 },
];

/** Where each placeholder of one kind starts in `tokens`. */
export function placeholderOffsets(tokens: ArrayLike<number>, p: PlaceholderTokens): number[] {
  const offsets: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] !== p.start) continue;
    let j = i + 1;
    while (j < tokens.length && tokens[j] === p.pad) j++;
    if (j > i + 1 && j < tokens.length && tokens[j] === p.end) {
      offsets.push(i);
      i = j;
    }
  }
  return offsets;
}

/**
 * A sample's images with the offset of each one's placeholder in `prompt_ids` followed by `response_ids`: the n-th
 * image of the request at the n-th placeholder. A sample whose tokens hold placeholders, but another number than its
 * request shows images, cannot be trained on (the processor would pair pixels with the wrong tokens): a corrupt row.
 * Tokens without any known placeholder (a tokenizer not in `PLACEHOLDERS`) leave the offsets null, unchecked.
 */
export function placeImages(
  images: readonly RequestImage[],
  tokens: { prompt: ArrayLike<number>; response: ArrayLike<number> },
  at: { rolloutId: string; seq: number },
): SampleImage[] {
  const all = new Int32Array(tokens.prompt.length + tokens.response.length);
  all.set(Array.from(tokens.prompt));
  all.set(Array.from(tokens.response), tokens.prompt.length);
  const found = PLACEHOLDERS.map((p) => ({ p, offsets: placeholderOffsets(all, p) })).find((f) => f.offsets.length > 0);
  if (!found) return images.map((image) => ({ ...image, token_offset: null }));
  if (found.offsets.length !== images.length) {
    throw new CorruptCallError(
      at.rolloutId,
      at.seq,
      `its request shows ${images.length} image(s), but the sample's token ids hold ${found.offsets.length} image placeholder(s) (${found.p.tokenizer})`,
    );
  }
  return images.map((image, i) => ({ ...image, token_offset: found.offsets[i]! }));
}
