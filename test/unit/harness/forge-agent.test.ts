import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type AgentOptions } from '../../../src/in-container/agents/forge-agent.js';
import { copyAgentBundle, runAgentBundle } from './agent-bundle.js';
import { startFakeChatServer, type FakeChatServer, type FakeServerOptions, type FakeReply, type RecordedRequest } from './fake-chat-server.js';

// Whitespace and escapes that a re-serialisation would change: the echo must keep them.
const WRITE_ARGS = '{"path": "out/hello.txt",  "content": "hello\\nforge \\u00e9"}';
const BASH_ARGS = '{"command":"cat out/hello.txt; echo; echo to-stderr >&2"}';

/** write_file, then bash cat, then a final answer. */
function happyScript(n: number): FakeReply {
  if (n === 0) return { content: 'Writing the file.', toolCalls: [{ id: 'call_w', name: 'write_file', arguments: WRITE_ARGS }] };
  if (n === 1) return { toolCalls: [{ id: 'call_b', name: 'bash', arguments: BASH_ARGS }] };
  return { content: 'Done: the file is written.' };
}

/** False once the process is gone or a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

let tmp: string;
let server: FakeChatServer | undefined;
const logs: string[] = [];

function workdir(): string {
  return mkdtempSync(path.join(tmp, 'work-'));
}

async function run(script: (n: number, r: RecordedRequest) => FakeReply, extra: Partial<AgentOptions> = {}, fake: FakeServerOptions = {}) {
  server = await startFakeChatServer(script, fake);
  const wd = workdir();
  const transcriptPath = path.join(wd, '..', `${path.basename(wd)}.jsonl`);
  const result = await runAgent({
    instruction: 'Write hello.txt and show it.',
    baseUrl: server.baseUrl,
    apiKey: 'sk-test-secret',
    workdir: wd,
    transcriptPath,
    retryBaseMs: 10,
    log: (line) => logs.push(line),
    ...extra,
  });
  const events = readFileSync(transcriptPath, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; ts: string; [k: string]: unknown });
  return { result, wd, requests: server.requests, events, transcriptText: readFileSync(transcriptPath, 'utf8') };
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'forge-agent-test-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  logs.length = 0;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.each([
  ['streaming', true, false, false],
  ['streaming, CRLF line ends', true, true, false],
  ['streaming, no [DONE] and no blank line after the last event', true, false, true],
  ['--no-stream', false, false, false],
])('forge-agent loop (%s)', (_name, stream, crlf, abruptEnd) => {
  it('writes a file, runs bash, echoes tool calls verbatim and finishes', async () => {
    const { result, wd, requests, events, transcriptText } = await run(happyScript, { stream, temperature: 0.5 }, { crlf, abruptEnd });

    expect(result).toEqual({ exitCode: 0, turns: 3, finalText: 'Done: the file is written.' });
    expect(readFileSync(path.join(wd, 'out/hello.txt'), 'utf8')).toBe('hello\nforge é');

    expect(requests).toHaveLength(3);
    const first = requests[0]!;
    expect(first.headers.authorization).toBe('Bearer sk-test-secret');
    expect(first.body.model).toBe('policy');
    expect(first.body.stream).toBe(stream);
    expect(first.body.temperature).toBe(0.5);
    expect(first.body.tools.map((t) => t.function.name)).toEqual(['bash', 'read_file', 'write_file']);
    expect(first.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(first.body.messages[1]!.content).toBe('Write hello.txt and show it.');

    // Turn 2 sees the echoed assistant message and the write_file result.
    const second = requests[1]!.body.messages;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second[2]).toEqual({
      role: 'assistant',
      content: 'Writing the file.',
      tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'write_file', arguments: WRITE_ARGS } }],
    });
    expect(second[3]!.tool_call_id).toBe('call_w');
    expect(second[3]!.content).toMatch(/^Wrote \d+ bytes to .*out\/hello\.txt$/);

    // Turn 3 sees the bash result: exit code and combined output.
    const third = requests[2]!.body.messages;
    expect(third).toHaveLength(6);
    expect(third[4]!.tool_calls?.[0]?.function.arguments).toBe(BASH_ARGS);
    expect(third[4]!.content).toBeNull();
    expect(third[5]!.role).toBe('tool');
    expect(third[5]!.tool_call_id).toBe('call_b');
    expect(third[5]!.content).toBe('Exit code: 0\nhello\nforge é\nto-stderr\n');

    expect(events.map((e) => e.type)).toEqual([
      'start',
      'model_request',
      'model_response',
      'tool_call',
      'tool_result',
      'model_request',
      'model_response',
      'tool_call',
      'tool_result',
      'model_request',
      'model_response',
      'final',
    ]);
    expect(events.every((e) => !Number.isNaN(Date.parse(e.ts)))).toBe(true);
    // the last chunk of each answer carries its finish reason
    expect(events.filter((e) => e.type === 'model_response').map((e) => e.finish_reason)).toEqual(['tool_calls', 'tool_calls', 'stop']);
    expect(events[3]).toMatchObject({ name: 'write_file', id: 'call_w', arguments: WRITE_ARGS });
    expect(events.at(-1)).toMatchObject({ text: 'Done: the file is written.' });
    expect(transcriptText).not.toContain('sk-test-secret');
    expect(logs.filter((l) => /turn \d+\/30/.test(l))).toHaveLength(3);
  });
});

describe('forge-agent loop: limits and errors', () => {
  it('stops with exit code 2 at max turns', async () => {
    const { result, requests, events } = await run((n) => ({ toolCalls: [{ id: `call_${n}`, name: 'bash', arguments: '{"command":"true"}' }] }), {
      maxTurns: 2,
    });
    expect(result.exitCode).toBe(2);
    expect(result.turns).toBe(2);
    expect(requests).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'error' });
    expect(logs.at(-1)).toContain('max turns (2)');
  });

  it('retries 500 twice, then succeeds', async () => {
    const { result, requests } = await run((n) => (n < 2 ? { status: 500, body: '{"error":"overloaded"}' } : { content: 'ok' }));
    expect(result).toEqual({ exitCode: 0, turns: 1, finalText: 'ok' });
    expect(requests).toHaveLength(3);
    expect(logs.filter((l) => l.includes('HTTP 500'))).toHaveLength(2);
  });

  it('honours Retry-After on 429', async () => {
    const started = Date.now();
    const { result, requests } = await run((n) => (n === 0 ? { status: 429, body: 'slow down', headers: { 'retry-after': '1' } } : { content: 'ok' }), {
      retryBaseMs: 1,
    });
    expect(result.exitCode).toBe(0);
    expect(requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after 4 retries', async () => {
    const { result, requests } = await run(() => ({ status: 503, body: 'down' }));
    expect(result.exitCode).toBe(1);
    expect(requests).toHaveLength(5);
    expect(result.error).toContain('HTTP 503: down');
  });

  it('exits 1 on 401 without retrying', async () => {
    const { result, requests, events } = await run(() => ({ status: 401, body: '{"error":"bad key"}' }));
    expect(result.exitCode).toBe(1);
    expect(requests).toHaveLength(1);
    expect(result.error).toContain('401');
    expect(result.error).toContain('bad key');
    expect(events.at(-1)).toMatchObject({ type: 'error', status: 401 });
  });

  it('exits 1 with a connection error when nothing listens', async () => {
    const probe = await startFakeChatServer(() => ({ content: '' }));
    const deadUrl = probe.baseUrl;
    await probe.close();
    const result = await runAgent({ instruction: 'x', baseUrl: deadUrl, workdir: tmp, maxRetries: 1, retryBaseMs: 1, log: () => {} });
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(/model API error: fetch failed.*ECONNREFUSED/);
  });

  it('kills a bash command (and its children) that exceeds the tool timeout', async () => {
    const command = 'sleep 60 & echo $! > bg.pid; echo started; wait';
    const started = Date.now();
    const { result, wd, requests } = await run(
      (n) => (n === 0 ? { toolCalls: [{ id: 'call_t', name: 'bash', arguments: JSON.stringify({ command }) }] } : { content: 'gave up' }),
      { toolTimeoutSec: 3 },
    );
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000); // killed long before the 60 s sleep ends
    const toolMessage = requests[1]!.body.messages[3]!;
    expect(toolMessage.tool_call_id).toBe('call_t');
    expect(toolMessage.content).toBe('Timed out after 3s: the command was killed.\nstarted\n');
    const pid = Number(readFileSync(path.join(wd, 'bg.pid'), 'utf8'));
    await expect.poll(() => isRunning(pid), { timeout: 3000 }).toBe(false);
  });

  it('does not wait for background processes that outlive bash', async () => {
    const started = Date.now();
    const { requests } = await run((n) =>
      n === 0 ? { toolCalls: [{ id: 'call_bg', name: 'bash', arguments: '{"command":"(sleep 30 &) ; echo bg"}' }] } : { content: 'ok' },
    );
    expect(requests[1]!.body.messages[3]!.content).toBe('Exit code: 0\nbg\n');
    expect(Date.now() - started).toBeLessThan(20_000); // did not wait for the 30 s background sleep
  });

  it('reports nonzero exit codes and truncates long output keeping head and tail', async () => {
    const { requests } = await run((n) =>
      n === 0
        ? {
            toolCalls: [
              { id: 'a', name: 'bash', arguments: '{"command":"echo oops; exit 3"}' },
              { id: 'b', name: 'bash', arguments: '{"command":"echo HEAD; seq 1 100000; echo TAIL"}' },
            ],
          }
        : { content: 'ok' },
    );
    const [a, b] = requests[1]!.body.messages.slice(3);
    expect(a).toMatchObject({ tool_call_id: 'a', content: 'Exit code: 3\noops\n' });
    expect(b!.tool_call_id).toBe('b');
    expect(b!.content!.length).toBeLessThan(17 * 1024);
    expect(b!.content).toMatch(/^Exit code: 0\nHEAD\n1\n/);
    expect(b!.content).toMatch(/bytes omitted/);
    expect(b!.content).toMatch(/\n100000\nTAIL\n$/);
  });

  it('returns malformed arguments, unknown tools and missing files to the model as errors', async () => {
    const { result, requests } = await run((n) =>
      n === 0
        ? {
            toolCalls: [
              { id: 'bad', name: 'bash', arguments: '{"command": "echo hi' },
              { id: 'nofield', name: 'bash', arguments: '{"cmd":"ls"}' },
              { id: 'unknown', name: 'browse', arguments: '{}' },
              { id: 'missing', name: 'read_file', arguments: '{"path":"nope.txt"}' },
            ],
          }
        : { content: 'recovered' },
    );
    expect(result).toEqual({ exitCode: 0, turns: 2, finalText: 'recovered' });
    const tools = requests[1]!.body.messages.slice(3);
    expect(tools.map((m) => m.tool_call_id)).toEqual(['bad', 'nofield', 'unknown', 'missing']);
    expect(tools[0]!.content).toMatch(/^Error: invalid JSON arguments for tool "bash"/);
    expect(tools[1]!.content).toMatch(/^Error: missing required string argument "command"/);
    expect(tools[2]!.content).toMatch(/^Error: unknown tool "browse"/);
    expect(tools[3]!.content).toMatch(/^Error: ENOENT/);
    expect(requests[1]!.body.messages[2]!.tool_calls?.[0]?.function.arguments).toBe('{"command": "echo hi');
  });

  it('read_file truncates large files', async () => {
    const { requests } = await run((n) =>
      n === 0
        ? { toolCalls: [{ id: 'w', name: 'write_file', arguments: JSON.stringify({ path: 'big.txt', content: 'x'.repeat(70_000) }) }] }
        : n === 1
          ? { toolCalls: [{ id: 'r', name: 'read_file', arguments: '{"path":"big.txt"}' }] }
          : { content: 'ok' },
    );
    const content = requests[2]!.body.messages[5]!.content!;
    expect(content.startsWith('x'.repeat(65536) + '\n\n[truncated: the file has 70000 bytes')).toBe(true);
  });
});

describe('the bundled agent (dist/agents/forge-agent.mjs), alone in a folder, as a child process', () => {
  let bundle: string;
  beforeAll(() => {
    bundle = copyAgentBundle('forge-agent');
  });
  const spawnAgent = (args: string[], env: Record<string, string>) => runAgentBundle(bundle, args, env);

  it('runs the loop end to end and exits 0', async () => {
    server = await startFakeChatServer(happyScript);
    const wd = workdir();
    const instructionFile = path.join(tmp, 'instruction.md');
    writeFileSync(instructionFile, 'Create out/hello.txt\n');
    const transcript = path.join(tmp, 'cli', 'transcript.jsonl');
    const { code, stdout, stderr } = await spawnAgent(
      ['--instruction-file', instructionFile, '--workdir', wd, '--transcript', transcript, '--max-turns', '5', '--tool-timeout-sec', '10'],
      { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-cli', OPENAI_MODEL: 'my-model' },
    );
    expect(stderr).toContain('turn 3/5: final answer');
    expect(code).toBe(0);
    expect(stdout).toBe('Done: the file is written.\n');
    expect(readFileSync(path.join(wd, 'out/hello.txt'), 'utf8')).toBe('hello\nforge é');
    expect(server.requests[0]!.body.model).toBe('my-model');
    expect(server.requests[0]!.body.messages[1]!.content).toBe('Create out/hello.txt\n');
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(existsSync(transcript)).toBe(true);
  });

  it('exits 1 with the HTTP status on stderr for a 401, and 2 at max turns', async () => {
    server = await startFakeChatServer((n) =>
      n === 0 ? { status: 401, body: 'invalid api key' } : { toolCalls: [{ id: `c${n}`, name: 'bash', arguments: '{"command":"true"}' }] },
    );
    const instructionFile = path.join(tmp, 'instruction.md');
    writeFileSync(instructionFile, 'loop\n');
    const common = ['--instruction-file', instructionFile, '--workdir', workdir(), '--transcript', path.join(tmp, 'cli2.jsonl')];
    const denied = await spawnAgent(common, { OPENAI_BASE_URL: server.baseUrl });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('HTTP 401: invalid api key');

    const looping = await spawnAgent([...common, '--max-turns', '1', '--no-stream'], { OPENAI_BASE_URL: server.baseUrl });
    expect(looping.code).toBe(2);
    expect(looping.stderr).toContain('max turns (1)');
  });

  it('exits 1 with usage on bad arguments, naming the problem', async () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const missing = await spawnAgent(['--max-turns', '3'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--instruction-file is required');
    expect(missing.stderr).toContain('usage: node forge-agent.mjs');
    const unknown = await spawnAgent(['--instruction-file=x.md', '--max-turn', '3'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--max-turn');
    const notANumber = await spawnAgent(['--instruction-file', 'x.md', '--max-turns', '2.5'], env);
    expect(notANumber.code).toBe(1);
    expect(notANumber.stderr).toContain('--max-turns must be a positive whole number, got "2.5"');
    const noFile = await spawnAgent(['--instruction-file', path.join(tmp, 'absent.md')], env);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toContain(`--instruction-file ${path.join(tmp, 'absent.md')}: no such file`);
    const folder = await spawnAgent(['--instruction-file', tmp], env);
    expect(folder.stderr).toContain(`--instruction-file ${tmp}: a folder, not a file`);
    const noBaseUrl = await spawnAgent(['--instruction-file', 'x.md'], {});
    expect(noBaseUrl.code).toBe(1);
    expect(noBaseUrl.stderr).toContain('OPENAI_BASE_URL is not set');
  });

  it('prints its usage for --help', async () => {
    const { code, stdout } = await spawnAgent(['--help'], {});
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: node forge-agent.mjs --instruction-file FILE/);
    expect(stdout).toContain('OPENAI_BASE_URL (required)');
  });
});
