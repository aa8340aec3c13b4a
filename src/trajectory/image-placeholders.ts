import { VISION_START_ID } from '../families/chatml/special-tokens.js';
import { CorruptCallError } from './trajectory-call.js';
import type { RequestImage } from './images.js';
import type { SampleImage } from './types.js';

/**
 * The token that opens an image's placeholder (`<|vision_start|>`, then `<|image_pad|>`s, `<|vision_end|>`) in the
 * token ids of calls served by `upstream`, when it is known: the sim's own ChatML tokenizer. With a model family
 * (`sim:oracle@qwen3`) or a real engine the tokenizer is not known here, and images carry no token offset.
 */
export function placeholderStartId(upstream: string | undefined): number | null {
  return upstream?.startsWith('sim:') && !upstream.includes('@') ? VISION_START_ID : null;
}

/**
 * A sample's images with the offset of each one's placeholder in `prompt_ids` followed by `response_ids`: the n-th
 * image of the request at the n-th placeholder. A sample whose tokens hold another number of placeholders than its
 * request shows images cannot be trained on (the processor would pair pixels with the wrong tokens): a corrupt row.
 */
export function placeImages(
  images: readonly RequestImage[],
  tokens: { prompt: ArrayLike<number>; response: ArrayLike<number> },
  startId: number | null,
  at: { rolloutId: string; seq: number },
): SampleImage[] {
  if (startId === null) return images.map((image) => ({ ...image, token_offset: null }));
  const offsets: number[] = [];
  for (let i = 0; i < tokens.prompt.length; i++) if (tokens.prompt[i] === startId) offsets.push(i);
  for (let i = 0; i < tokens.response.length; i++) if (tokens.response[i] === startId) offsets.push(tokens.prompt.length + i);
  if (offsets.length !== images.length) {
    throw new CorruptCallError(
      at.rolloutId,
      at.seq,
      `its request shows ${images.length} image(s), but the sample's token ids hold ${offsets.length} image placeholder(s)`,
    );
  }
  return images.map((image, i) => ({ ...image, token_offset: offsets[i]! }));
}
