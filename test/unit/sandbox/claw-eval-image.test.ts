import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { ImageBuilder } from '../../../src/sandbox/docker/images.js';
import { makeSuite } from '../../helpers/tasks.js';

// Tags are computed from the inputs alone: no engine call is made.
const builder = new ImageBuilder(new Docker());

describe('the Claw-Eval image', () => {
  it('is built on a trixie base of its own, apart from the bookworm base of the other images', () => {
    expect(builder.trixieBaseTag()).toMatch(/^openforge\/base-trixie:[0-9a-f]{16}$/);
    expect(builder.trixieBaseTag().split(':')[1]).not.toBe(builder.baseTag().split(':')[1]);
  });

  it("resolves a task's FROM openforge/claw-eval (any tag) to the current image, not to the workspace image", () => {
    const suite = makeSuite([{ id: 'claw' }]);
    const dockerfile = path.join(suite, 'claw/environment/Dockerfile');
    const tagFrom = (from: string) => {
      writeFileSync(dockerfile, `FROM ${from}\nRUN true\n`);
      return builder.taskImageTag(loadTask(path.join(suite, 'claw')));
    };
    const current = tagFrom('openforge/claw-eval');
    expect(tagFrom('openforge/claw-eval:old')).toBe(current);
    expect(tagFrom('openforge/workspace')).not.toBe(current);
  });
});
