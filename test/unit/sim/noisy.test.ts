import { afterAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/sim/chat-request.js';
import { GIVE_UP_ANSWER, createNoisyPolicy } from '../../../src/sim/policies/noisy.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';

afterAll(removeTaskDirs);

const task = makeTask();
const request: ChatRequest = { messages: [{ role: 'user', content: INSTRUCTION }], tools: [OPENAI_BASH] };
const rolloutIds = Array.from({ length: 200 }, (_, i) => `run-7/hello-file/${i}`);

function failureCount(p: number): number {
  const policy = createNoisyPolicy(p);
  return rolloutIds.filter((rolloutId) => policy.respond(request, { task, rolloutId }).content === GIVE_UP_ANSWER).length;
}

describe('noisy policy', () => {
  it('gives up on about a fraction p of rollouts', () => {
    expect(failureCount(0.3) / 200).toBeGreaterThan(0.2);
    expect(failureCount(0.3) / 200).toBeLessThan(0.4);
    expect(failureCount(0.7) / 200).toBeGreaterThan(0.6);
    expect(failureCount(0.7) / 200).toBeLessThan(0.8);
    expect(failureCount(0)).toBe(0);
    expect(failureCount(1)).toBe(200);
  });

  it('behaves the same every time for one rollout, and like the oracle when it does not give up', () => {
    const policy = createNoisyPolicy(0.5);
    const outcomes = rolloutIds.map((rolloutId) => policy.respond(request, { task, rolloutId }));
    const again = rolloutIds.map((rolloutId) => createNoisyPolicy(0.5).respond(request, { task, rolloutId }));
    expect(again).toEqual(outcomes);
    const solving = outcomes.filter((a) => a.content !== GIVE_UP_ANSWER);
    expect(solving.length).toBeGreaterThan(0);
    for (const answer of solving) expect(answer.toolCalls[0]?.arguments).toContain('echo hello');
    for (const answer of outcomes.filter((a) => a.content === GIVE_UP_ANSWER)) expect(answer.toolCalls).toEqual([]);
  });

  it('seeds from the first user message when the rollout id is unknown', () => {
    const policy = createNoisyPolicy(0.5);
    const byMessage = (text: string) => policy.respond({ ...request, messages: [{ role: 'user', content: text }] }, { task }).content;
    const texts = Array.from({ length: 40 }, (_, i) => `${INSTRUCTION} (variant ${i})`);
    const first = texts.map(byMessage);
    expect(texts.map(byMessage)).toEqual(first);
    expect(new Set(first.map((c) => c === GIVE_UP_ANSWER)).size).toBe(2);
  });
});
