import { decode } from '../families/chatml/tokenizer.js';
import type { Segment } from './segment.js';
import type { BreakReason } from './types.js';

/**
 * Why a call whose messages extend a conversation does not extend its tokens. With the simulated
 * model the tokenizer is known: when the decoded texts still line up, only the ids changed
 * (`retokenization`), otherwise the template rendered the turns differently. With another upstream
 * there is no tokenizer here, so the break's position decides: a prompt that still starts with the
 * previous prompt but not with the previous answer's ids is a retokenized answer; a prompt that
 * already differs before it was rendered by another template.
 */
export function tokenBreakCause(segment: Segment, prompt: ArrayLike<number>, simulated: boolean): BreakReason {
  if (simulated) {
    try {
      return decode(Array.from(prompt)).startsWith(decode(segment.allIds())) ? 'retokenization' : 'template_mismatch';
    } catch {
      return 'template_mismatch'; // ids outside the sim's vocabulary: not the sim's rendering
    }
  }
  return segment.extendsBeforeLastCompletion(prompt) ? 'retokenization' : 'template_mismatch';
}
