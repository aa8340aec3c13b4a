import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/config/task.js';
import { TaskImages } from '../../../src/rollout/task-images.js';
import type { ImageBuilder } from '../../../src/sandbox/docker/images.js';
import { RolloutError } from '../../../src/util/errors.js';

/** An ImageBuilder that answers from a list, one answer per call, and counts its calls. */
function builder(answers: (() => Promise<string>)[]) {
  let calls = 0;
  const b = { ensureTaskImage: () => answers[calls++]!() } as unknown as ImageBuilder;
  return { b, calls: () => calls };
}

const task = { id: 'demo' } as Task;

describe('TaskImages', () => {
  it("keeps a failed build: the task's other rollouts fail fast instead of building again", async () => {
    const { b, calls } = builder([() => Promise.reject(new RolloutError('build', 'RUN exit 7'))]);
    const images = new TaskImages(b);
    await expect(images.get(task)).rejects.toThrow('RUN exit 7');
    await expect(images.get(task)).rejects.toThrow('RUN exit 7');
    expect(calls()).toBe(1);
  });

  it("forgets a failure that was not the build's (the engine restarting), so a retry asks again", async () => {
    const gone = Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' });
    const { b, calls } = builder([() => Promise.reject(gone), () => Promise.resolve('openforge/task-demo:1')]);
    const images = new TaskImages(b);
    await expect(images.get(task)).rejects.toThrow('ENOENT');
    expect(await images.get(task)).toBe('openforge/task-demo:1');
    expect(calls()).toBe(2);
  });
});
