import { createParser } from 'eventsource-parser';

/** Minimal client for the sim over real HTTP. */

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Posts a streaming request and returns the `data:` payloads in order (`[DONE]` as the string). */
export async function postStream(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; events: any[] }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const events: any[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event.data === '[DONE]' ? '[DONE]' : JSON.parse(event.data)) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return { status: response.status, headers: response.headers, events };
}
