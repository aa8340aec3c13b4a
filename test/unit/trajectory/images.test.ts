import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { imagesIn } from '../../../src/trajectory/call-content.js';
import { chatMessages } from '../../../src/proxy/protocols/anthropic/messages-to-chat.js';
import { imageRefs, requestImages } from '../../../src/trajectory/images.js';

const png = Buffer.from('screenshot bytes');
const b64 = png.toString('base64');
const hash = `sha256:${createHash('sha256').update(png).digest('hex')}`;

describe('images shown by MCP tool results (GUI env servers through real harnesses)', () => {
  it('finds a screenshot inside an Anthropic tool_result block (Claude Code)', () => {
    const request = {
      messages: [
        { role: 'user', content: 'Add a todo.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'mcp__browser__browser_click', input: { x: 1, y: 2 } }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [
                { type: 'text', text: '{"url":"http://127.0.0.1:8000/"}' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
              ],
            },
          ],
        },
      ],
    };
    expect(imageRefs(request, 'anthropic')).toEqual({ images: [{ message_index: 2, part_index: 0, item_index: 1, url_or_hash: hash }] });
  });

  it('finds a screenshot in a Responses function_call_output (Codex)', () => {
    const request = {
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add a todo.' }] },
        { type: 'function_call', name: 'browser_click', namespace: 'mcp__browser', arguments: '{}', call_id: 'c1' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'Output:' },
            { type: 'input_image', image_url: `data:image/png;base64,${b64}` },
          ],
        },
      ],
    };
    expect(imageRefs(request, 'responses')).toEqual({ images: [{ message_index: 2, part_index: 1, url_or_hash: hash }] });
  });

  it('reports none for a text-only tool result', () => {
    const request = { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'ok' }] }] }] };
    expect(imageRefs(request, 'anthropic')).toBeNull();
  });

  it('the inspector sees the same screenshots (imagesIn) in both shapes', () => {
    const anthropic = [
      { role: 'user', content: [{ type: 'tool_result', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }] }] },
    ];
    const responses = [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: `data:image/png;base64,${b64}` }] }];
    expect(imagesIn(anthropic, 'anthropic')).toEqual([`data:image/png;base64,${b64}`]);
    expect(imagesIn(responses, 'responses')).toEqual([`data:image/png;base64,${b64}`]);
  });
});

describe('images in the order the engine sees them', () => {
  it("lists an Anthropic turn's tool-result screenshots before its own images, as the Chat request the engine renders has them", () => {
    const shot = (name: string) => ({
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png', data: Buffer.from(name).toString('base64') },
    });
    const messages = [
      { role: 'user' as const, content: [shot('task'), { type: 'text' as const, text: 'Add a todo.' }] },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'click', input: {} }] },
      {
        role: 'user' as const,
        content: [shot('own'), { type: 'tool_result' as const, tool_use_id: 't1', content: [{ type: 'text' as const, text: 'ok' }, shot('after click')] }],
      },
    ];
    const urls = (list: string[]) => list.map((n) => `data:image/png;base64,${Buffer.from(n).toString('base64')}`);
    expect(requestImages({ messages }, 'anthropic').map((i) => i.url)).toEqual(urls(['task', 'after click', 'own']));
    // the engine's view: the proxy's Chat translation, image parts in message order
    const chat = chatMessages(messages as never) as unknown as { content: unknown }[];
    const engine = chat
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .flatMap((p: { type: string; image_url?: { url: string } }) => (p.type === 'image_url' ? [p.image_url!.url] : []));
    expect(engine).toEqual(urls(['task', 'after click', 'own']));
  });
});
