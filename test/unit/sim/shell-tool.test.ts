import { describe, expect, it } from 'vitest';
import { findShellTool, shellToolArguments } from '../../../src/sim/policies/shell-tool.js';
import { ARGV_SHELL, CLAUDE_CODE_TOOLS, CODEX_TOOLS, OPENAI_BASH } from './fixtures.js';

const SCRIPT = 'set -e\necho hi';

describe('findShellTool', () => {
  it('finds an OpenAI function bash{command}', () => {
    const tool = findShellTool([OPENAI_BASH]);
    expect(tool).toMatchObject({ name: 'bash', commandProperty: 'command', commandForm: 'string' });
    expect(JSON.parse(shellToolArguments(tool!, SCRIPT, 'Step 1'))).toEqual({ command: SCRIPT });
  });

  it("finds Claude Code's Bash, not SlashCommand, and fills its required description", () => {
    const tool = findShellTool(CLAUDE_CODE_TOOLS);
    expect(tool?.name).toBe('Bash');
    expect(JSON.parse(shellToolArguments(tool!, SCRIPT, 'Step 1/2 of the reference solution'))).toEqual({
      command: SCRIPT,
      description: 'Step 1/2 of the reference solution',
    });
  });

  it("finds Codex's exec_command{cmd}", () => {
    const tool = findShellTool(CODEX_TOOLS);
    expect(tool).toMatchObject({ name: 'exec_command', commandProperty: 'cmd', commandForm: 'string' });
    expect(JSON.parse(shellToolArguments(tool!, SCRIPT, 'x'))).toEqual({ cmd: SCRIPT });
  });

  it('sends bash -lc to an argv tool shell{command: string[]} and fills workdir and timeouts by unit', () => {
    const tool = findShellTool([ARGV_SHELL]);
    expect(tool).toMatchObject({ name: 'shell', commandForm: 'argv' });
    expect(JSON.parse(shellToolArguments(tool!, SCRIPT, 'x'))).toEqual({
      command: ['bash', '-lc', SCRIPT],
      workdir: '/workspace',
      timeout_ms: 120000,
      timeout_sec: 120,
    });
  });

  it('matches names case-insensitively and by schema alone, preferring known names', () => {
    const custom = {
      type: 'function',
      function: { name: 'sandbox_runner', parameters: { type: 'object', properties: { script: { type: 'string' } } } },
    };
    expect(findShellTool([custom])?.commandProperty).toBe('script');
    const upper = { type: 'function', function: { name: 'RUN_SHELL_COMMAND', parameters: { properties: { command: { type: 'string' } } } } };
    expect(findShellTool([custom, upper])?.name).toBe('RUN_SHELL_COMMAND');
  });

  it('takes the single string parameter of a known shell name', () => {
    const terminal = { type: 'function', function: { name: 'terminal', parameters: { properties: { input: { type: 'string' } } } } };
    expect(findShellTool([terminal])).toMatchObject({ name: 'terminal', commandProperty: 'input' });
  });

  it('finds nothing when no tool can run a command', () => {
    expect(findShellTool(undefined)).toBeUndefined();
    expect(findShellTool(CLAUDE_CODE_TOOLS.filter((t) => t.function?.name === 'Read'))).toBeUndefined();
    const notFunction = { type: 'custom', function: { name: 'bash', parameters: { properties: { command: { type: 'string' } } } } };
    expect(findShellTool([notFunction])).toBeUndefined();
  });
});
