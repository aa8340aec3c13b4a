import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { parseAnswer } from '../../engine-wire/answer-json.js';
import type { ChatBody } from '../../engine-wire/chat-wire.js';
import { wholeAnswerTokens } from '../../engine-wire/token-capture.js';
import { errorMessage } from '../../util/errors.js';
import { CLIENT_CLOSED_REQUEST, type CallOutcome } from './call-outcome.js';
import { errorTypeForStatus } from '../http/http-error.js';
import type { AnswerTranslator, Endpoint } from '../protocols/types.js';
import { writeBytes, writeJson } from '../http/raw-reply.js';
import { readBytes } from '../upstream/http-client.js';
import { UpstreamTimeoutError } from '../upstream/upstream-timeouts.js';
import type { CallSignal } from './call-cancel.js';

/** A non-streamed answer may carry logprobs for thousands of tokens; anything larger is broken. */
const MAX_RESPONSE_BYTES = 512 * 1024 * 1024;

/** Reads a whole upstream `chat.completion`, captures its tokens and answers the harness in its protocol. */
export async function answerWhole(
  protocol: Endpoint,
  call: AnswerTranslator,
  upstream: { url: string; response: Readable },
  res: ServerResponse,
  signal: CallSignal,
  elapsedMs: () => number,
): Promise<CallOutcome> {
  let body: ChatBody;
  try {
    const bytes = await readBytes(upstream.response, MAX_RESPONSE_BYTES);
    const cut = call.answerFromBytes?.(bytes);
    if (cut) {
      writeBytes(res, 200, cut);
      return { status: 200, response: null, responseBytes: cut, answerBytes: bytes, error: null, ttfbMs: elapsedMs(), tokens: null, upstream: upstream.url };
    }
    body = parseAnswer(bytes);
  } catch (err) {
    if (signal.aborted) {
      return { status: CLIENT_CLOSED_REQUEST, response: null, error: 'client disconnected', ttfbMs: null, tokens: null, upstream: upstream.url };
    }
    const timedOut = err instanceof UpstreamTimeoutError;
    const status = timedOut ? 504 : 502;
    const error = `upstream answer unreadable: ${errorMessage(err)}`;
    writeJson(res, status, protocol.errorBody(error, errorTypeForStatus(status), timedOut ? 'upstream_timeout' : 'upstream_invalid_response'));
    return { status, response: null, error, ttfbMs: elapsedMs(), tokens: null, upstream: upstream.url };
  }
  const tokens = wholeAnswerTokens(body);
  const clientBody = call.translateResponse(body);
  const responseJson = writeJson(res, 200, clientBody);
  return { status: 200, response: clientBody, responseJson, error: null, ttfbMs: elapsedMs(), tokens, upstream: upstream.url };
}
