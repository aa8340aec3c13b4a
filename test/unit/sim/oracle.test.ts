import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ToolDefinition } from '../../../src/sim/chat-request.js';
import { createOraclePolicy } from '../../../src/sim/policies/oracle.js';
import type { PolicyAnswer } from '../../../src/sim/policies/types.js';
import { ARGV_SHELL, CLAUDE_CODE_TOOLS, CODEX_TOOLS, INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';

afterAll(removeTaskDirs);

const oracle = createOraclePolicy();

/** Plays a harness: sends the conversation, runs nothing, appends a tool result per call, until a text answer. */
function runEpisode(tools: ToolDefinition[], task = makeTask(), maxTurns = 10): PolicyAnswer[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: INSTRUCTION },
  ];
  const answers: PolicyAnswer[] = [];
  for (let turn = 0; turn < maxTurns; turn++) {
    const request: ChatRequest = { model: 'm', messages: [...messages], tools };
    const answer = oracle.respond(request, { task });
    answers.push(answer);
    if (answer.toolCalls.length === 0) return answers;
    messages.push({
      role: 'assistant',
      content: answer.content,
      tool_calls: answer.toolCalls.map((c, i) => ({ id: `c${turn}${i}`, type: 'function', function: c })),
    });
    answer.toolCalls.forEach((_, i) => messages.push({ role: 'tool', tool_call_id: `c${turn}${i}`, content: '' }));
  }
  throw new Error('the oracle never finished');
}

describe('oracle policy', () => {
  it('runs each step of solve.sh with the preamble, one tool call each, then says it is done', () => {
    const answers = runEpisode([OPENAI_BASH]);
    expect(answers).toHaveLength(3);
    expect(answers.slice(0, 2).map((a) => JSON.parse(a.toolCalls[0]?.arguments ?? '{}').command)).toEqual([
      '#!/bin/bash\nset -euo pipefail\n# step: write the greeting\necho hello > /workspace/hello.txt',
      '#!/bin/bash\nset -euo pipefail\n# step: append the name\necho world >> /workspace/hello.txt',
    ]);
    expect(answers.slice(0, 2).every((a) => a.toolCalls.length === 1 && a.toolCalls[0]?.name === 'bash')).toBe(true);
    expect(answers[2]).toEqual({ content: expect.stringMatching(/^Done: /), toolCalls: [] });
  });

  it('gives solution/answer.md as its final answer when the reference solution has one', () => {
    const task = makeTask();
    writeFileSync(path.join(task.solutionDir!, 'answer.md'), 'The greeting is in hello.txt.\n');
    const answers = runEpisode([OPENAI_BASH], task);
    expect(answers).toHaveLength(3);
    expect(answers[2]).toEqual({ content: 'The greeting is in hello.txt.', toolCalls: [] });
  });

  it("drives Claude Code's Bash with a description naming the step", () => {
    const answers = runEpisode(CLAUDE_CODE_TOOLS);
    const first = JSON.parse(answers[0]?.toolCalls[0]?.arguments ?? '{}');
    expect(answers[0]?.toolCalls[0]?.name).toBe('Bash');
    expect(first.description).toBe('Step 1/2 of the reference solution: write the greeting');
    expect(answers.at(-1)?.content).toMatch(/^Done: /);
  });

  it("drives Codex's exec_command and an argv shell", () => {
    expect(JSON.parse(runEpisode(CODEX_TOOLS)[1]?.toolCalls[0]?.arguments ?? '{}').cmd).toContain('echo world');
    const argv = JSON.parse(runEpisode([ARGV_SHELL])[0]?.toolCalls[0]?.arguments ?? '{}').command;
    expect(argv.slice(0, 2)).toEqual(['bash', '-lc']);
    expect(argv[2]).toContain('echo hello');
  });

  it('counts only calls of the shell tool as progress', () => {
    const task = makeTask();
    const request: ChatRequest = {
      messages: [
        { role: 'user', content: INSTRUCTION },
        { role: 'assistant', content: null, tool_calls: [{ id: 'r', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/x"}' } }] },
        { role: 'tool', tool_call_id: 'r', content: 'x' },
      ],
      tools: CLAUDE_CODE_TOOLS,
    };
    expect(oracle.respond(request, { task }).toolCalls[0]?.arguments).toContain('write the greeting');
  });

  it('says so in text when the request has no shell tool', () => {
    const answer = oracle.respond({ messages: [{ role: 'user', content: INSTRUCTION }], tools: CLAUDE_CODE_TOOLS.slice(1, 2) }, { task: makeTask() });
    expect(answer.toolCalls).toEqual([]);
    expect(answer.content).toMatch(/declares no shell tool/);
    const none = oracle.respond({ messages: [{ role: 'user', content: 'x' }], tools: [OPENAI_BASH], tool_choice: 'none' }, { task: makeTask() });
    expect(none.toolCalls).toEqual([]);
  });

  it('says so in text when the task has no solution', () => {
    const answer = oracle.respond({ messages: [{ role: 'user', content: INSTRUCTION }], tools: [OPENAI_BASH] }, { task: makeTask({ solve: null }) });
    expect(answer).toEqual({ content: expect.stringMatching(/has no solution\/solve\.sh/), toolCalls: [] });
  });

  it('runs a script without markers as a single call', () => {
    const answers = runEpisode([OPENAI_BASH], makeTask({ solve: '#!/bin/bash\necho one\necho two\n' }));
    expect(answers).toHaveLength(2);
    expect(JSON.parse(answers[0]?.toolCalls[0]?.arguments ?? '{}').command).toBe('#!/bin/bash\necho one\necho two');
  });
});
