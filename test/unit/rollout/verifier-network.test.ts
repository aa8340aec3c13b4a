import { describe, expect, it } from 'vitest';
import { networkFailureIn } from '../../../src/rollout/verifier-network.js';

describe('a grader that could not reach the network', () => {
  it("is recognised from what Terminal-Bench's test.sh prints offline", () => {
    const offline = [
      'Ign:1 http://deb.debian.org/debian bookworm InRelease',
      "Err:1 http://deb.debian.org/debian bookworm InRelease\n  Temporary failure resolving 'deb.debian.org'",
      'curl: (6) Could not resolve host: astral.sh',
      '/tests/test.sh: line 9: /root/.local/bin/env: No such file or directory',
    ].join('\n');
    expect(networkFailureIn(offline)).toBe("Temporary failure resolving 'deb.debian.org'");
    expect(networkFailureIn('curl: (6) Could not resolve host: astral.sh')).toMatch(/astral\.sh/);
    expect(networkFailureIn('pip: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')).toBeDefined();
  });

  it('is not read into an ordinary failing test', () => {
    expect(networkFailureIn('FAILED tests/test_outputs.py::test_output - AssertionError: assert 3 == 4\n1 failed')).toBeUndefined();
    expect(networkFailureIn('')).toBeUndefined();
  });
});
