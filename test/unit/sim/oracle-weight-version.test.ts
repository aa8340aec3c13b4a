import { afterAll, describe, expect, it } from 'vitest';
import { doneText } from '../../../src/sim/policies/oracle.js';
import { startSimServer } from '../../../src/sim/server.js';
import { INSTRUCTION, OPENAI_BASH, makeTask, removeTaskDirs } from './fixtures.js';

afterAll(removeTaskDirs);

describe('the oracle under weight versions', () => {
  it('answers alike for one version, names it, and differs between versions; no version keeps the plain answer', () => {
    expect(doneText('ran 2 step(s)', undefined)).toBe('Done: ran 2 step(s).');
    const texts = ['1', '2', '3', '4', '5', '6'].map((v) => doneText('ran 2 step(s)', v));
    texts.forEach((t, i) => expect(t).toMatch(new RegExp(`^(Done|Finished|Complete) \\(weights ${i + 1}\\): ran 2 step\\(s\\)\\.$`)));
    expect(doneText('ran 2 step(s)', '3')).toBe(texts[2]);
    expect(new Set(texts.map((t) => t.split(' ')[0])).size).toBeGreaterThan(1);
  });

  it('a sim server answers under the version set on it, from the next call on', async () => {
    const task = makeTask();
    const sim = await startSimServer({ policy: { kind: 'oracle' }, tasks: [task] });
    try {
      const finalAnswer = async () => {
        // two shell calls made already: the oracle's next answer is its closing text
        const messages = [
          { role: 'user', content: INSTRUCTION },
          ...[0, 1].flatMap((i) => [
            { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{"command":"true"}' } }] },
            { role: 'tool', tool_call_id: `c${i}`, content: '' },
          ]),
        ];
        const res = await fetch(`${sim.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: sim.model, messages, tools: [OPENAI_BASH] }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      };
      expect(await finalAnswer()).toMatch(/^Done: ran the 2 step/);
      sim.setWeightVersion('7');
      expect(await finalAnswer()).toBe(doneText(`ran the 2 step(s) of the reference solution of task ${task.id}`, '7'));
      sim.setWeightVersion('8');
      expect(await finalAnswer()).toContain('(weights 8)');
    } finally {
      await sim.close();
    }
  });
});
