import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadTask, type Task } from '../../../src/config/task.js';
import type { ToolDefinition } from '../../../src/sim/chat-request.js';

export const SOLVE_SH = `#!/bin/bash
set -euo pipefail

# step: write the greeting
echo hello > /workspace/hello.txt

# step: append the name
echo world >> /workspace/hello.txt
`;

export const INSTRUCTION = 'Create /workspace/hello.txt containing "hello" on the first line and "world" on the second.';

/** A Harbor-layout task in a fresh temp folder; `solve: null` leaves out solution/. */
export function makeTask(options: { name?: string; instruction?: string; solve?: string | null } = {}): Task {
  const dir = mkdtempSync(path.join(tmpdir(), 'openforge-sim-task-'));
  createdDirs.push(dir);
  const name = options.name ?? 'hello-file';
  writeFileSync(path.join(dir, 'task.toml'), `[task]\nname = "${name}"\n`);
  writeFileSync(path.join(dir, 'instruction.md'), `${options.instruction ?? INSTRUCTION}\n`);
  mkdirSync(path.join(dir, 'tests'));
  writeFileSync(path.join(dir, 'tests', 'test.sh'), '#!/bin/bash\ngrep -q world /workspace/hello.txt && echo 1 > /logs/verifier/reward.txt\n');
  const solve = options.solve === undefined ? SOLVE_SH : options.solve;
  if (solve !== null) {
    mkdirSync(path.join(dir, 'solution'));
    writeFileSync(path.join(dir, 'solution', 'solve.sh'), solve);
  }
  return loadTask(dir);
}

const createdDirs: string[] = [];

export function removeTaskDirs(): void {
  for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// Tool declarations as real harnesses send them (trimmed to what matters).

export const OPENAI_BASH: ToolDefinition = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'Run a bash command.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
};

export const CLAUDE_CODE_TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'SlashCommand',
      description: 'Execute a slash command within the main conversation',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'Read',
      parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'Bash',
      description: 'Executes a given bash command in a persistent shell session.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The command to execute' },
          timeout: { type: 'number', description: 'Optional timeout in milliseconds (max 600000)' },
          description: { type: 'string', description: 'Clear, concise description of what this command does in 5-10 words' },
          run_in_background: { type: 'boolean' },
        },
        required: ['command', 'description'],
      },
    },
  },
];

export const CODEX_TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'exec_command',
      description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
      parameters: {
        type: 'object',
        properties: {
          cmd: { type: 'string' },
          workdir: { type: 'string' },
          yield_time_ms: { type: 'number' },
          max_output_tokens: { type: 'number' },
        },
        required: ['cmd'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_stdin',
      parameters: {
        type: 'object',
        properties: { session_id: { type: 'number' }, chars: { type: 'string' } },
        required: ['session_id'],
      },
    },
  },
];

export const ARGV_SHELL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'shell',
    description: 'Runs a shell command and returns its output.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'array', items: { type: 'string' } },
        workdir: { type: 'string' },
        timeout_ms: { type: 'number' },
        timeout_sec: { type: 'integer' },
      },
      required: ['command', 'workdir', 'timeout_ms', 'timeout_sec'],
    },
  },
};
