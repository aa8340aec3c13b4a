import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ToolDefinition } from '../../../src/sim/chat-request.js';
import type { CanonicalAction } from '../../../src/in-container/browser-env/actions.js';
import { findEnvMcpTools, toMcpCalls } from '../../../src/sim/policies/env-mcp-tools.js';
import { createOraclePolicy } from '../../../src/sim/policies/oracle.js';
import type { PolicyAnswer } from '../../../src/sim/policies/types.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';

afterAll(removeTaskDirs);

const VERBS = ['reset', 'observe', 'click', 'type', 'key', 'scroll', 'navigate', 'click_ref', 'fill_ref', 'action'];
const tools = (prefix: string, kind = 'browser'): ToolDefinition[] =>
  VERBS.map((v) => ({ type: 'function', function: { name: `${prefix}${kind}_${v}`, parameters: { type: 'object' } } }));

const ACTIONS = [
  { type: 'click', x: 264, y: 156 },
  { type: 'type', text: 'Book dentist' },
  { type: 'key', keys: ['Enter'] },
  { type: 'wait', ms: 300 },
  { type: 'scroll', dx: 0, dy: 300 },
  { type: 'goto', url: 'http://127.0.0.1:8000/b' },
  { type: 'click', x: 5, y: 6, modifiers: ['Shift'] },
  { type: 'done', answer: 'added' },
];

function episode(list: ToolDefinition[]): PolicyAnswer[] {
  const task = makeTask({ solve: '#!/bin/bash\ntrue\n' });
  writeFileSync(path.join(task.dir, 'solution', 'actions.json'), JSON.stringify(ACTIONS));
  const policy = createOraclePolicy();
  const messages: ChatMessage[] = [{ role: 'user', content: INSTRUCTION }];
  const answers: PolicyAnswer[] = [];
  for (let turn = 0; turn < 20; turn++) {
    const answer = policy.respond({ messages: [...messages], tools: list }, { task, rolloutId: 'r' });
    answers.push(answer);
    if (answer.toolCalls.length === 0) return answers;
    messages.push({ role: 'assistant', content: null, tool_calls: answer.toolCalls.map((c, i) => ({ id: `c${turn}${i}`, type: 'function', function: c })) });
    answer.toolCalls.forEach((_, i) =>
      messages.push({ role: 'tool', tool_call_id: `c${turn}${i}`, content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }),
    );
  }
  throw new Error('the oracle never finished');
}

describe('the sim oracle through a GUI env server’s MCP tools', () => {
  it('recognises them under any harness prefix, and only with their <kind>_action tool', () => {
    expect(findEnvMcpTools(tools('mcp__browser__'))).toMatchObject({ prefix: 'mcp__browser__', kind: 'browser' });
    expect(findEnvMcpTools(tools(''))).toMatchObject({ prefix: '', kind: 'browser' });
    expect(findEnvMcpTools(tools('mcp__desktop__', 'desktop'))?.names.size).toBe(VERBS.length);
    expect(findEnvMcpTools(tools('mcp__browser__').filter((t) => !t.function!.name.endsWith('_action')))).toBeUndefined();
  });

  it('replays the reference actions as the dedicated tools, the rest through <kind>_action, then answers', () => {
    const answers = episode([OPENAI_BASH, ...tools('mcp__browser__')]);
    const calls = answers.flatMap((a) => a.toolCalls).map((c) => [c.name, JSON.parse(c.arguments)]);
    expect(calls).toEqual([
      ['mcp__browser__browser_click', { x: 264, y: 156 }],
      ['mcp__browser__browser_type', { text: 'Book dentist' }],
      ['mcp__browser__browser_key', { keys: ['Enter'] }],
      ['mcp__browser__browser_action', { schema: 'canonical', action: { type: 'wait', ms: 300 } }],
      ['mcp__browser__browser_scroll', { dx: 0, dy: 300 }],
      ['mcp__browser__browser_navigate', { url: 'http://127.0.0.1:8000/b' }],
      ['mcp__browser__browser_action', { schema: 'canonical', action: { type: 'click', x: 5, y: 6, modifiers: ['Shift'] } }],
    ]);
    expect(answers.at(-1)).toEqual({ content: 'added', toolCalls: [] });
  });

  it('drives a desktop env server the same way', () => {
    const answers = episode(tools('desktop__', 'desktop'));
    expect(answers[0]!.toolCalls[0]!.name).toBe('desktop__desktop_click');
    expect(answers.at(-1)!.content).toBe('added');
  });

  it('gives a task up through <kind>_action (the env server records it), then says so in the final answer', () => {
    const desktop = findEnvMcpTools(tools('mcp__desktop__', 'desktop'))!;
    expect(
      toMcpCalls(
        [
          { type: 'click', x: 1, y: 2 },
          { type: 'fail', reason: 'infeasible' },
          { type: 'click', x: 3, y: 4 },
        ],
        desktop,
      ),
    ).toEqual({
      calls: [
        { name: 'mcp__desktop__desktop_click', arguments: { x: 1, y: 2 } },
        { name: 'mcp__desktop__desktop_action', arguments: { schema: 'canonical', action: { type: 'fail', reason: 'infeasible' } } },
      ],
      finalAnswer: 'I cannot complete the task: infeasible',
    });
  });

  it('drags through the desktop’s drag tool, and through <kind>_action where there is none', () => {
    const drag = {
      type: 'drag',
      path: [
        { x: 10, y: 20 },
        { x: 30, y: 40 },
        { x: 50, y: 60 },
      ],
    };
    const desktop = findEnvMcpTools(tools('mcp__desktop__', 'desktop'))!;
    const withDrag = { ...desktop, names: new Set([...desktop.names, 'mcp__desktop__desktop_drag']) };
    expect(toMcpCalls([drag as CanonicalAction], withDrag).calls).toEqual([{ name: 'mcp__desktop__desktop_drag', arguments: { path: drag.path } }]);
    expect(toMcpCalls([drag as CanonicalAction], desktop).calls).toEqual([
      { name: 'mcp__desktop__desktop_action', arguments: { schema: 'canonical', action: drag } },
    ]);
  });
});

describe('a harness whose MCP tools are not listed yet (Codex connects its MCP servers in the background)', () => {
  it('waits through the shell, then replays through the MCP tools once they are listed', () => {
    const task = makeTask({ solve: '#!/bin/bash\ntrue\n' });
    writeFileSync(path.join(task.dir, 'solution', 'actions.json'), JSON.stringify([{ type: 'click', x: 1, y: 2 }, { type: 'done' }]));
    const policy = createOraclePolicy();
    const mcpResources: ToolDefinition = { type: 'function', function: { name: 'list_mcp_resources', parameters: { type: 'object' } } };
    const early = policy.respond({ messages: [{ role: 'user', content: INSTRUCTION }], tools: [OPENAI_BASH, mcpResources] }, { task, rolloutId: 'r' });
    expect(early.toolCalls[0]!.name).toBe(OPENAI_BASH.function!.name);
    expect(early.toolCalls[0]!.arguments).toContain('sleep 2');
    const messages: ChatMessage[] = [
      { role: 'user', content: INSTRUCTION },
      { role: 'assistant', content: null, tool_calls: [{ id: 'w', type: 'function', function: early.toolCalls[0]! }] },
      { role: 'tool', tool_call_id: 'w', content: '' },
    ];
    const later = policy.respond({ messages, tools: [OPENAI_BASH, mcpResources, ...tools('')] }, { task, rolloutId: 'r' });
    expect(later.toolCalls[0]).toEqual({ name: 'browser_click', arguments: JSON.stringify({ x: 1, y: 2 }) });
  });
});
