import { describe, expect, it } from 'vitest';
import { splitSolutionSteps } from '../../../src/sim/policies/solution-steps.js';
import { SOLVE_SH } from './fixtures.js';

describe('splitSolutionSteps', () => {
  it('splits at # step lines and prepends the preamble to every step', () => {
    expect(splitSolutionSteps(SOLVE_SH)).toEqual([
      {
        label: 'write the greeting',
        command: '#!/bin/bash\nset -euo pipefail\n# step: write the greeting\necho hello > /workspace/hello.txt',
      },
      {
        label: 'append the name',
        command: '#!/bin/bash\nset -euo pipefail\n# step: append the name\necho world >> /workspace/hello.txt',
      },
    ]);
  });

  it('treats a script without markers as one step', () => {
    expect(splitSolutionSteps('#!/bin/sh\ncd /app\nmake\n\n')).toEqual([{ label: '', command: '#!/bin/sh\ncd /app\nmake' }]);
  });

  it('accepts numbered and bare markers, CRLF line ends, and no preamble', () => {
    const steps = splitSolutionSteps('# Step 1: build\r\nmake\r\n# step\r\nmake test\r\n');
    expect(steps.map((s) => s.label)).toEqual(['build', '']);
    expect(steps[0]?.command).toBe('# Step 1: build\r\nmake');
    expect(steps[1]?.command).toBe('# step\r\nmake test');
  });

  it('does not take "# steps …" or "# stepping" for markers', () => {
    expect(splitSolutionSteps('# steps below are slow\necho a\n# stepping through\necho b\n')).toHaveLength(1);
  });

  it('has no steps for an empty script', () => {
    expect(splitSolutionSteps('  \n\n')).toEqual([]);
  });
});
