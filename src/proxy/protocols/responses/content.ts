import { z } from 'zod';
import { invalidResponsesRequest, parseField } from './validation.js';

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

export type ChatContent = string | ChatContentPart[];

const textPartSchema = z.looseObject({ type: z.string(), text: z.string() });
const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const imagePartSchema = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string({ error: 'input_image needs image_url (a URL or a data: URL); file_id is not supported, the proxy stores no files' }).min(1),
  detail: z.string().nullish(),
});
const partSchema = z.looseObject({ type: z.string() });

const TEXT_PART_TYPES = new Set(['input_text', 'output_text', 'text']);

/**
 * Chat content for a Responses message or tool output: a string stays a string, a single text
 * part becomes its text, and anything else a list of `text` and `image_url` parts.
 */
export function chatContent(content: string | readonly unknown[], field: string): ChatContent {
  if (typeof content === 'string') return content;
  const parts = content.map((part, i) => chatPart(part, `${field}[${i}]`));
  const [only] = parts;
  return parts.length === 1 && only?.type === 'text' ? only.text : parts;
}

/** The text of an assistant message: its output_text parts joined, exactly as they were generated. */
export function assistantText(content: string | readonly unknown[], field: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      const chat = chatPart(part, `${field}[${i}]`);
      if (chat.type !== 'text') throw invalidResponsesRequest(`${field}[${i}].type`, 'an assistant message can only hold text');
      return chat.text;
    })
    .join('');
}

function chatPart(part: unknown, field: string): ChatContentPart {
  const { type } = parseField(partSchema, part, field);
  if (TEXT_PART_TYPES.has(type)) return { type: 'text', text: parseField(textPartSchema, part, field).text };
  if (type === 'refusal') return { type: 'text', text: parseField(refusalPartSchema, part, field).refusal };
  if (type === 'input_image') {
    const image = parseField(imagePartSchema, part, field);
    const detail = image.detail ?? undefined;
    return { type: 'image_url', image_url: detail === undefined ? { url: image.image_url } : { url: image.image_url, detail } };
  }
  throw invalidResponsesRequest(`${field}.type`, `unsupported content part "${type}" (supported: input_text, output_text, refusal, input_image)`);
}
