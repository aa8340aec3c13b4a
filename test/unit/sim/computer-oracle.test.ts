import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CanonicalAction } from '../../../src/in-container/browser-env/actions.js';
import { COMPUTER_TOOL, stepRequest } from '../../../src/in-container/agents/forge-gui-agent.js';
import type { ChatMessage, ChatRequest, ToolDefinition } from '../../../src/sim/chat-request.js';
import { SCROLL_NOTCH_PX, toComputerArgs, toComputerCalls } from '../../../src/sim/policies/computer-actions.js';
import { findComputerTool } from '../../../src/sim/policies/computer-tool.js';
import { translate } from '../../../src/in-container/browser-env/translators/index.js';
import { createNoisyPolicy } from '../../../src/sim/policies/noisy.js';
import { createOraclePolicy } from '../../../src/sim/policies/oracle.js';
import type { Policy, PolicyAnswer } from '../../../src/sim/policies/types.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';

afterAll(removeTaskDirs);

const GUI_TOOL = COMPUTER_TOOL as ToolDefinition;
const tool = findComputerTool([GUI_TOOL])!;
/** A computer tool with only the computer_20250124 actions (no navigate). */
const PLAIN_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'computer',
    parameters: { type: 'object', properties: { action: { type: 'string', enum: ['left_click', 'key', 'type', 'scroll', 'mouse_move'] } } },
  },
};

function browserTask(actions: unknown) {
  const task = makeTask({ solve: '#!/bin/bash\ncurl -sf -X POST http://127.0.0.1:7000/step --data @/solution/actions.json\n' });
  writeFileSync(path.join(task.dir, 'solution', 'actions.json'), JSON.stringify(actions));
  return task;
}

/** Plays the harness: appends each tool call with a text result and a screenshot message, until a text answer. */
function runEpisode(policy: Policy, tools: ToolDefinition[], task: ReturnType<typeof browserTask>, maxTurns = 20): PolicyAnswer[] {
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: INSTRUCTION },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
      ],
    },
  ];
  const answers: PolicyAnswer[] = [];
  for (let turn = 0; turn < maxTurns; turn++) {
    const request: ChatRequest = { messages: [...messages], tools };
    const answer = policy.respond(request, { task, rolloutId: 'r1' });
    answers.push(answer);
    if (answer.toolCalls.length === 0) return answers;
    messages.push({ role: 'assistant', content: null, tool_calls: answer.toolCalls.map((c, i) => ({ id: `c${turn}${i}`, type: 'function', function: c })) });
    answer.toolCalls.forEach((_, i) => messages.push({ role: 'tool', tool_call_id: `c${turn}${i}`, content: 'OK' }));
    messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] });
  }
  throw new Error('the oracle never finished');
}

const args = (a: PolicyAnswer) => JSON.parse(a.toolCalls[0]!.arguments) as Record<string, unknown>;

describe('canonical → Anthropic computer_20250124 arguments', () => {
  const map = (action: CanonicalAction, t = tool) => toComputerArgs(action, t);

  it('maps clicks by button and count, with modifiers as xdotool keys in text', () => {
    expect(map({ type: 'click', x: 10.4, y: 20.6 })).toEqual([{ action: 'left_click', coordinate: [10, 21] }]);
    expect(map({ type: 'click', x: 1, y: 2, count: 2 })).toEqual([{ action: 'double_click', coordinate: [1, 2] }]);
    expect(map({ type: 'click', x: 1, y: 2, count: 3 })).toEqual([{ action: 'triple_click', coordinate: [1, 2] }]);
    expect(map({ type: 'click', x: 1, y: 2, button: 'right' })).toEqual([{ action: 'right_click', coordinate: [1, 2] }]);
    expect(map({ type: 'click', x: 1, y: 2, button: 'middle' })).toEqual([{ action: 'middle_click', coordinate: [1, 2] }]);
    expect(map({ type: 'click', x: 1, y: 2, modifiers: ['Control', 'Shift'] })).toEqual([{ action: 'left_click', coordinate: [1, 2], text: 'ctrl+shift' }]);
    expect(() => map({ type: 'click', x: 1, y: 2, button: 'back' })).toThrow(/back click has no computer_20250124 action/);
  });

  it('writes key chords in xdotool syntax and types text as is', () => {
    expect(map({ type: 'key', keys: ['Control', 's'] })).toEqual([{ action: 'key', text: 'ctrl+s' }]);
    expect(map({ type: 'key', keys: ['Enter'] })).toEqual([{ action: 'key', text: 'Return' }]);
    expect(map({ type: 'key', keys: ['PageDown'] })).toEqual([{ action: 'key', text: 'Page_Down' }]);
    expect(map({ type: 'key', keys: ['Meta', 'ArrowLeft'] })).toEqual([{ action: 'key', text: 'super+Left' }]);
    expect(map({ type: 'key', keys: ['Control', '+'] })).toEqual([{ action: 'key', text: 'ctrl+plus' }]);
    expect(map({ type: 'key', keys: [' '] })).toEqual([{ action: 'key', text: 'space' }]);
    expect(map({ type: 'type', text: 'hello world+1' })).toEqual([{ action: 'type', text: 'hello world+1' }]);
  });

  it(`turns scroll pixels into notches of ${SCROLL_NOTCH_PX} px, one call per axis`, () => {
    expect(map({ type: 'scroll', x: 640, y: 400, dx: 0, dy: 300 })).toEqual([
      { action: 'scroll', coordinate: [640, 400], scroll_direction: 'down', scroll_amount: 3 },
    ]);
    expect(map({ type: 'scroll', dx: -250, dy: -40 })).toEqual([
      { action: 'scroll', scroll_direction: 'up', scroll_amount: 1 },
      { action: 'scroll', scroll_direction: 'left', scroll_amount: 3 },
    ]);
  });

  it('maps moves, drags, waits and screenshots', () => {
    expect(map({ type: 'move', x: 5, y: 6 })).toEqual([{ action: 'mouse_move', coordinate: [5, 6] }]);
    expect(
      map({
        type: 'drag',
        path: [
          { x: 1, y: 2 },
          { x: 30, y: 40 },
        ],
      }),
    ).toEqual([{ action: 'left_click_drag', start_coordinate: [1, 2], coordinate: [30, 40] }]);
    expect(
      map({
        type: 'drag',
        path: [
          { x: 1, y: 2 },
          { x: 5, y: 5 },
          { x: 30, y: 40 },
        ],
      }).map((a) => a.action),
    ).toEqual(['mouse_move', 'left_mouse_down', 'mouse_move', 'mouse_move', 'left_mouse_up']);
    expect(map({ type: 'wait', ms: 1500 })).toEqual([{ action: 'wait', duration: 1.5 }]);
    expect(map({ type: 'wait', ms: 60_000, until: 'Font size' })).toEqual([{ action: 'wait', duration: 60, text: 'Font size' }]);
    expect(map({ type: 'screenshot' })).toEqual([{ action: 'screenshot' }]);
  });

  it("navigates with the tool's navigate action when declared, else through the address bar", () => {
    expect(map({ type: 'goto', url: 'http://127.0.0.1:8000/a' })).toEqual([{ action: 'navigate', url: 'http://127.0.0.1:8000/a' }]);
    const plain = findComputerTool([PLAIN_TOOL])!;
    expect(map({ type: 'goto', url: 'http://x/' }, plain)).toEqual([
      { action: 'key', text: 'ctrl+l' },
      { action: 'type', text: 'http://x/' },
      { action: 'key', text: 'Return' },
    ]);
    expect(map({ type: 'go_back' })).toEqual([{ action: 'go_back' }]);
    expect(map({ type: 'go_back' }, plain)).toEqual([{ action: 'key', text: 'alt+Left' }]);
  });

  it('refuses actions a computer tool cannot express, and ends the script at done, or at fail through the tool where it declares one', () => {
    expect(() => map({ type: 'click_ref', ref: 'e1' })).toThrow(/cannot be replayed through a computer tool/);
    expect(map({ type: 'switch_tab', index: 1 })).toEqual([{ action: 'switch_tab', index: 1 }]);
    expect(() => map({ type: 'switch_tab', index: 1 }, findComputerTool([PLAIN_TOOL])!)).toThrow(/declares no switch_tab action/);
    expect(
      toComputerCalls(
        [
          { type: 'click', x: 1, y: 1 },
          { type: 'done', answer: '42' },
          { type: 'click', x: 2, y: 2 },
        ],
        tool,
      ),
    ).toEqual({
      calls: [{ action: 'left_click', coordinate: [1, 1] }],
      finalAnswer: '42',
    });
    // OSWorld's FAIL: through the tool's own fail action where it declares one, else said in the final answer
    expect(toComputerCalls([{ type: 'fail', reason: 'infeasible' }], tool)).toEqual({
      calls: [{ action: 'fail', text: 'infeasible' }],
      finalAnswer: undefined,
    });
    expect(toComputerCalls([{ type: 'fail', reason: 'infeasible' }], findComputerTool([PLAIN_TOOL])!)).toEqual({
      calls: [],
      finalAnswer: 'I cannot complete the task: infeasible',
    });
  });
});

describe("round trip: oracle → forge-gui-agent → the env server's translators", () => {
  it('gives back the canonical action the oracle started from', () => {
    const ctx = { viewport: { width: 1280, height: 800 }, mouse: { x: 0, y: 0 } };
    const cases: CanonicalAction[] = [
      { type: 'click', x: 10, y: 20, button: 'left', count: 1 },
      { type: 'click', x: 10, y: 20, button: 'left', count: 2 },
      { type: 'click', x: 10, y: 20, button: 'left', count: 3 },
      { type: 'click', x: 10, y: 20, button: 'right', count: 1 },
      { type: 'click', x: 10, y: 20, button: 'left', count: 1, modifiers: ['Control', 'Shift'] },
      { type: 'move', x: 5, y: 6 },
      {
        type: 'drag',
        path: [
          { x: 1, y: 2 },
          { x: 30, y: 40 },
        ],
      },
      { type: 'scroll', x: 640, y: 400, dx: 0, dy: 300 },
      { type: 'scroll', x: 640, y: 400, dx: -200, dy: 0 },
      { type: 'type', text: 'hello world' },
      { type: 'key', keys: ['Control', 's'] },
      { type: 'key', keys: ['Enter'] },
      { type: 'key', keys: ['PageDown'] },
      { type: 'key', keys: ['Control', '+'] },
      { type: 'key', keys: ['Meta', 'ArrowLeft'] },
      { type: 'key', keys: [' '] },
      { type: 'wait', ms: 1500 },
      { type: 'goto', url: 'http://127.0.0.1:8000/a' },
      { type: 'go_back' },
      { type: 'new_tab', url: 'http://127.0.0.1:8000/b' },
      { type: 'switch_tab', index: 1 },
      { type: 'close_tab', index: 0 },
    ];
    for (const action of cases) {
      const back = toComputerArgs(action, tool).flatMap((a) => {
        const step = stepRequest(a) as { schema: 'anthropic' | 'canonical'; action: CanonicalAction };
        return step.schema === 'canonical' ? [step.action] : translate(step.schema, step.action, ctx);
      });
      expect(back, JSON.stringify(action)).toEqual([action]);
    }
  });
});

describe('finding the computer tool', () => {
  it('finds it by name or by an action enum of computer actions, and not among shell tools', () => {
    expect(findComputerTool([OPENAI_BASH, GUI_TOOL])).toMatchObject({ name: 'computer', actions: expect.arrayContaining(['left_click', 'navigate']) });
    const renamed: ToolDefinition = {
      type: 'function',
      function: { name: 'browser_use', parameters: { type: 'object', properties: { action: { type: 'string', enum: ['left_click', 'type'] } } } },
    };
    expect(findComputerTool([renamed])?.name).toBe('browser_use');
    expect(findComputerTool([OPENAI_BASH])).toBeUndefined();
  });
});

describe('oracle and noisy policies on a browser task', () => {
  const actions = [
    { type: 'goto', url: 'http://127.0.0.1:8000/' },
    { type: 'click', x: 100, y: 200 },
    { type: 'type', text: 'milk' },
    { type: 'key', keys: ['Enter'] },
    { type: 'done', answer: 'Added milk.' },
  ];

  it('replays the reference actions as computer calls, one per turn, then answers', () => {
    const answers = runEpisode(createOraclePolicy(), [GUI_TOOL], browserTask(actions));
    expect(answers.slice(0, -1).map((a) => [a.toolCalls[0]!.name, args(a)])).toEqual([
      ['computer', { action: 'navigate', url: 'http://127.0.0.1:8000/' }],
      ['computer', { action: 'left_click', coordinate: [100, 200] }],
      ['computer', { action: 'type', text: 'milk' }],
      ['computer', { action: 'key', text: 'Return' }],
    ]);
    expect(answers.at(-1)).toEqual({ content: 'Added milk.', toolCalls: [] });
  });

  it('prefers the computer tool over a shell tool, and uses solve.sh through a shell tool when there is no computer tool', () => {
    const task = browserTask(actions);
    expect(runEpisode(createOraclePolicy(), [OPENAI_BASH, GUI_TOOL], task)[0]!.toolCalls[0]!.name).toBe('computer');
    const shell = runEpisode(createOraclePolicy(), [OPENAI_BASH], task);
    expect(JSON.parse(shell[0]!.toolCalls[0]!.arguments).command).toContain('/solution/actions.json');
  });

  it('says what is wrong with a bad actions.json instead of guessing', () => {
    const answers = runEpisode(createOraclePolicy(), [GUI_TOOL], browserTask([{ type: 'click', x: 'left' }]));
    expect(answers).toHaveLength(1);
    expect(answers[0]!.content).toMatch(/actions\.json: action 1 .* is not a canonical action/);
  });

  it('noisy:0 replays like the oracle; noisy:1 gives up at once', () => {
    const task = browserTask(actions);
    expect(runEpisode(createNoisyPolicy(0), [GUI_TOOL], task)).toHaveLength(5);
    const gaveUp = runEpisode(createNoisyPolicy(1), [GUI_TOOL], task);
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]!.toolCalls).toEqual([]);
  });
});
