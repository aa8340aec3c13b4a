import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { imagesIn } from '../../../src/trajectory/call-content.js';
import { imageRefs } from '../../../src/trajectory/images.js';

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
