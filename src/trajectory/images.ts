import { createHash } from 'node:crypto';
import type { ProtocolName } from '../records/call.js';
import { protocolRecords } from '../proxy/protocols/registry.js';
import { isRecord } from '../util/is-record.js';
import type { ImageRef, MultiModalData } from './types.js';

/** An image a request shows: where it sits in the request's own message list, and its URL as sent (inline images as data URLs). */
export interface RequestImage {
  message_index: number;
  part_index: number;
  item_index?: number;
  url: string;
}

/**
 * Images shown in a request, in the order the engine sees them (its messages and their parts, in order): the index of the message in
 * the request's own list (`messages`, or `input` for Responses) and of the part in its content, and the
 * image URL as sent. An image inside a tool result has `item_index` too (an MCP screenshot in Anthropic's
 * `tool_result` block); a Responses `function_call_output` counts its `output` items as parts.
 */
export function requestImages(request: unknown, protocol: ProtocolName): RequestImage[] {
  const records = protocolRecords(protocol);
  const list = records.messageList(request);
  if (!list) return [];
  const images: RequestImage[] = [];
  list.forEach((message, messageIndex) => {
    const content = isRecord(message) ? (Array.isArray(message.content) ? message.content : message.output) : undefined;
    if (!Array.isArray(content)) return;
    const own: RequestImage[] = [];
    const inToolResults: RequestImage[] = [];
    content.forEach((part, partIndex) => {
      const url = records.imageUrl(part);
      if (url !== undefined) own.push({ message_index: messageIndex, part_index: partIndex, url });
      else if (isRecord(part) && Array.isArray(part.content)) {
        part.content.forEach((item, itemIndex) => {
          const nested = records.imageUrl(item);
          if (nested !== undefined) inToolResults.push({ message_index: messageIndex, part_index: partIndex, item_index: itemIndex, url: nested });
        });
      }
    });
    // The order the engine sees them in: Anthropic's tool results become Chat `tool` messages, which carry text
    // only, and their images move to the user message after them, ahead of the turn's own parts
    // (proxy/protocols/anthropic/messages-to-chat.ts).
    if (protocol === 'anthropic') images.push(...inToolResults, ...own);
    else images.push(...[...own, ...inToolResults].sort((a, b) => a.part_index - b.part_index || (a.item_index ?? -1) - (b.item_index ?? -1)));
  });
  return images;
}

/** Images shown in a request, as references: the URL, or for inline images `sha256:<hex>` of the bytes, never the bytes. */
export function imageRefs(request: unknown, protocol: ProtocolName): MultiModalData<ImageRef> | null {
  const images = requestImages(request, protocol).map(({ url, ...at }): ImageRef => ({ ...at, url_or_hash: urlOrHash(url) }));
  return images.length > 0 ? { images } : null;
}

/** An inline image's bytes and media type; undefined for a URL that is not a data URL. */
export function dataUrlBytes(url: string): { mime: string; bytes: Buffer } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  const meta = url.slice(5, comma < 0 ? undefined : comma);
  const payload = comma < 0 ? '' : url.slice(comma + 1);
  const base64 = meta.endsWith(';base64');
  const mime = (base64 ? meta.slice(0, -';base64'.length) : meta).split(';')[0] || 'application/octet-stream';
  return { mime, bytes: base64 ? Buffer.from(payload, 'base64') : Buffer.from(percentDecoded(payload), 'utf8') };
}

function urlOrHash(url: string): string {
  const inline = dataUrlBytes(url);
  return inline ? `sha256:${sha256Hex(inline.bytes)}` : url;
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // malformed escapes: hash the text as it is
  }
}
