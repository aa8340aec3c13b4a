import { parseAnswer } from './answer-json.js';
import { TokenCapture, wholeAnswerTokens, type CapturedTokens } from './token-capture.js';

/** What `answerTokens` reads when the bytes are not one JSON object: no tokens, and why. */
export interface UnreadableAnswer extends CapturedTokens {
  problem: string;
}

/**
 * The tokens of a whole `chat.completion` read from its bytes, which it takes over (the id list is
 * cut out of them in place). Never throws: an answer that is not one JSON object has no tokens,
 * and `problem` says why.
 */
export function answerTokens(bytes: Buffer): CapturedTokens | UnreadableAnswer {
  try {
    return wholeAnswerTokens(parseAnswer(bytes));
  } catch (err) {
    return { ...new TokenCapture().result(), problem: `the upstream's answer is not a JSON object: ${err instanceof Error ? err.message : String(err)}` };
  }
}
