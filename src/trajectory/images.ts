import { createHash } from 'node:crypto';
import type { ProtocolName } from '../records/call.js';
import { protocolRecords } from '../proxy/protocols/registry.js';
import { isRecord } from '../util/is-record.js';
import type { ImageRef, MultiModalData } from './types.js';

/**
 * Images shown in a request, as references: the index of the message in the request's own list
 * (`messages`, or `input` for Responses) and of the part in its content, and the image URL — or,
 * for inline images (data URLs, base64 blocks), `sha256:<hex>` of the bytes, never the bytes.
 */
export function imageRefs(request: unknown, protocol: ProtocolName): MultiModalData | null {
  const records = protocolRecords(protocol);
  const list = records.messageList(request);
  if (!list) return null;
  const images: ImageRef[] = [];
  list.forEach((message, messageIndex) => {
    // a message's content, or a Responses function_call_output's output items (tool results with screenshots)
    const content = isRecord(message) ? (Array.isArray(message.content) ? message.content : message.output) : undefined;
    if (!Array.isArray(content)) return;
    content.forEach((part, partIndex) => {
      const url = records.imageUrl(part);
      if (url !== undefined) images.push({ message_index: messageIndex, part_index: partIndex, url_or_hash: urlOrHash(url) });
      else if (isRecord(part) && Array.isArray(part.content)) {
        part.content.forEach((item, itemIndex) => {
          const nested = records.imageUrl(item);
          if (nested !== undefined) images.push({ message_index: messageIndex, part_index: partIndex, item_index: itemIndex, url_or_hash: urlOrHash(nested) });
        });
      }
    });
  });
  return images.length > 0 ? { images } : null;
}

function urlOrHash(url: string): string {
  if (!url.startsWith('data:')) return url;
  const comma = url.indexOf(',');
  const meta = url.slice(5, comma < 0 ? undefined : comma);
  const payload = comma < 0 ? '' : url.slice(comma + 1);
  return bytesHash(meta.endsWith(';base64') ? Buffer.from(payload, 'base64') : Buffer.from(percentDecoded(payload), 'utf8'));
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // malformed escapes: hash the text as it is
  }
}

function bytesHash(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
