import { describe, expect, it } from 'vitest';
import { simpleCommands } from '../../../src/analytics/behaviour/shell-script.js';
import { toolAction } from '../../../src/analytics/behaviour/tool-action.js';
import { toolFailed } from '../../../src/analytics/behaviour/tool-failure.js';

const bash = (command: string) => toolAction({ name: 'bash', arguments: JSON.stringify({ command }) });

describe('reading a shell script', () => {
  it('splits it into simple commands at unquoted separators, heredocs and comments aside', () => {
    const commands = simpleCommands(`#!/usr/bin/env bash
set -euo pipefail
# step: render
cd /workspace && grep -c 'a;b|c' in.txt | sort > out.txt 2>/dev/null || echo "x > y" >&2
python3 - <<'PY'
open("r.txt", "w").write("1")
PY
cat r.txt`);
    expect(commands.map((c) => c.words)).toEqual([
      ['set', '-euo', 'pipefail'],
      ['cd', '/workspace'],
      ['grep', '-c', 'a;b|c', 'in.txt'],
      ['sort'],
      ['echo', 'x > y'],
      ['python3', '-'],
      ['cat', 'r.txt'],
    ]);
    expect(commands.map((c) => c.writesFile)).toEqual([false, false, false, true, false, false, false]);
    expect(commands[5]!.heredocs).toEqual(['open("r.txt", "w").write("1")']);
  });
});

describe('what a tool call does', () => {
  it('tells writes from checks in shell commands, in the order they run', () => {
    expect(bash('mkdir -p out && printf "a\\n" > out/r.txt && cat out/r.txt').effects).toEqual(['write', 'write', 'check']);
    expect(bash('sed -i s/a/b/ f.ini; sed -n 1,3p f.ini').effects).toEqual(['write', 'check']);
    expect(bash('git add -A && git commit -m x && git status --short').effects).toEqual(['write', 'write', 'check']);
    expect(bash('tar -czf r.tgz dist && tar -tzf r.tgz && sha256sum -c r.tgz.sha256').effects).toEqual(['write', 'check', 'check']);
    expect(bash('python3 -m pytest -q tests/').effects).toEqual(['check']);
    expect(bash("python3 -c \"import json; json.dump({}, open('o.json', 'w'))\"").effects).toEqual(['write']);
    expect(bash('python3 wordfreq.py sample.txt').effects).toEqual([]);
    expect(bash('bash tests/test.sh').effects).toEqual(['check']);
    expect(bash('diff -u expected.txt out.txt 2>&1').effects).toEqual(['check']);
    expect(bash('sudo rm -f old.log').effects).toEqual(['write']);
  });

  it('reads file tools by name and argv shells by their script', () => {
    expect(toolAction({ name: 'Write', arguments: '{"file_path": "/w/a.txt", "content": "x"}' }).effects).toEqual(['write']);
    expect(toolAction({ name: 'read_file', arguments: '{"absolute_path": "/w/a.txt"}' }).effects).toEqual(['check']);
    expect(toolAction({ name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch' }).effects).toEqual(['write']);
    expect(toolAction({ name: 'str_replace_based_edit_tool', arguments: '{"command": "view", "path": "/w/a"}' }).effects).toEqual(['check']);
    expect(toolAction({ name: 'str_replace_based_edit_tool', arguments: '{"command": "create", "path": "/w/a", "file_text": "x"}' }).effects).toEqual([
      'write',
    ]);
    expect(toolAction({ name: 'shell', arguments: '{"command": ["bash", "-lc", "ls -la out"]}' }).effects).toEqual(['check']);
    expect(toolAction({ name: 'TodoWrite', arguments: '{"todos": []}' }).effects).toEqual([]);
  });

  it('gives equal signatures to the same call and equal intents to calls after the same thing', () => {
    expect(bash('# step 1\ncat  out.txt').signature).toBe(bash('#!/bin/bash\n# again\ncat out.txt\n').signature);
    expect(bash('cat out.txt').signature).not.toBe(bash('cat out.txt | head').signature);
    expect(bash('cd /w && python3 fix.py --fast').intent).toBe(bash('python3 fix.py').intent);
    expect(toolAction({ name: 'Read', arguments: '{"file_path": "/w/a", "limit": 5}' }).intent).toBe(
      toolAction({ name: 'Read', arguments: '{"file_path": "/w/a"}' }).intent,
    );
  });
});

describe('a failed tool result', () => {
  it("is what the protocol says, else the exit status the harness wrote, else the result's text", () => {
    expect(toolFailed({ callId: 'a', output: 'Exit code 1', isError: false })).toBe(false);
    expect(toolFailed({ callId: 'a', output: 'fine', isError: true })).toBe(true);
    const results: [string, boolean][] = [
      ['Exit code: 2\n', true],
      ['Process exited with code 1\nOutput:\n', true],
      ['Output: x\nError: (none)\nExit Code: 1', true],
      ['x\n\n(Command exited with code 127)', true],
      ['Exit code: 0\nerror: nothing', false],
      ['Process exited with code 0', false],
      ['Output: ok\nError: (none)\nExit Code: 0', false],
      ['status: ok\n', false],
      ['error.log\nnotes.txt', false],
      // no exit status: the text decides
      ['cat: a.txt: No such file or directory\n', true],
      ['Error: File not found', true],
      ['bash: foo: command not found', true],
      ['Traceback (most recent call last):\n', true],
    ];
    for (const [output, failed] of results) expect(toolFailed({ callId: 'a', output }), output).toBe(failed);
  });
});
