import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTasks } from '../../../src/config/task.js';
import { importTasks, parseTaskFile } from '../../../src/importers/browser/index.js';
import { parseScore, parseVerdict } from '../../../src/in-container/graders/webjudge.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/importers');
const WEBVOYAGER = path.join(FIXTURES, 'webvoyager-sample.jsonl');
const MIND2WEB = path.join(FIXTURES, 'mind2web-sample.json');
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'of-import-'));
const write = (name: string, text: string) => {
  const file = path.join(tmp(), name);
  writeFileSync(file, text);
  return file;
};

describe('WebVoyager import', () => {
  it('reads every JSONL line into a task with its start page', () => {
    const tasks = parseTaskFile('webvoyager', WEBVOYAGER);
    expect(tasks.map((t) => t.id)).toEqual(['webvoyager-allrecipes--0', 'webvoyager-amazon--0', 'webvoyager-github--3']);
    expect(tasks[1]).toMatchObject({
      source: 'webvoyager',
      website: 'Amazon',
      startUrl: 'https://www.amazon.com/',
      task: 'Search an Xbox Wireless controller with green color and rated above 4 stars.',
    });
  });

  it('names the line and the field of a bad record', () => {
    expect(() =>
      parseTaskFile(
        'webvoyager',
        write('a.jsonl', '{"web_name":"X","id":"X--1","ques":"q","web":"https://x.org/"}\n{"web_name":"Y","id":"Y--1","web":"https://y.org/"}\n'),
      ),
    ).toThrow(/line 2: missing or empty field\(s\): ques/);
    expect(() => parseTaskFile('webvoyager', write('b.jsonl', '{"web_name":"X",\n'))).toThrow(/line 1: not valid JSON/);
    expect(() => parseTaskFile('webvoyager', write('c.jsonl', '{"web_name":"X","id":"X--1","ques":"q","web":"not a url"}\n'))).toThrow(
      /"web" is not a site URL/,
    );
  });
});

describe('Online-Mind2Web import', () => {
  it('reads the JSON array with level and reference length as metadata', () => {
    const tasks = parseTaskFile('mind2web', MIND2WEB);
    expect(tasks).toHaveLength(2);
    expect(tasks[1]).toMatchObject({
      id: 'mind2web-4b3ff1e4c2b9a0e6f0c7b5a2d8e91f73',
      website: 'www.booking.com',
      startUrl: 'https://www.booking.com/',
      metadata: { level: 'hard', reference_length: 11, source_id: '4b3ff1e4c2b9a0e6f0c7b5a2d8e91f73' },
    });
  });

  it('rejects an unknown level and a duplicate id with the task number', () => {
    expect(() => parseTaskFile('mind2web', write('a.json', '[{"task_id":"t1","confirmed_task":"x","website":"https://a.com","level":"extreme"}]'))).toThrow(
      /task 1: bad field\(s\): level/,
    );
    const dup = JSON.stringify([
      { task_id: 't1', confirmed_task: 'x', website: 'a.com' },
      { task_id: 't1', confirmed_task: 'y', website: 'b.com' },
    ]);
    expect(() => parseTaskFile('mind2web', write('b.json', dup))).toThrow(/two tasks share the id "mind2web-t1"/);
  });
});

describe('writing Harbor browser tasks', () => {
  it('writes tasks that load as live-site browser tasks with the judge as their grader', () => {
    const out = tmp();
    importTasks('mind2web', MIND2WEB, out);
    const tasks = loadTasks(out);
    expect(tasks.map((t) => t.id)).toEqual(['mind2web-4b3ff1e4c2b9a0e6f0c7b5a2d8e91f73', 'mind2web-ade4c09ad3fdb1607209750924cd232f']);
    const t = tasks[1]!;
    expect(t.config.environment).toMatchObject({
      kind: 'browser',
      allow_internet: true,
      browser: { start_url: 'https://www.flightaware.com/', viewport: { width: 1280, height: 800 } },
    });
    expect(t.instruction).toContain('Compare available plans for the AeroAPI on FlightAware.');
    expect(readFileSync(path.join(t.dir, 'environment/Dockerfile'), 'utf8')).toBe('FROM openforge/browser\n');
    expect(JSON.parse(readFileSync(path.join(t.testsDir, 'task.json'), 'utf8'))).toMatchObject({
      task_id: 'ade4c09ad3fdb1607209750924cd232f',
      source: 'mind2web',
    });
  });

  it('is reachable as `openforge tasks import`, and rejects an unknown source and options its importer does not read', () => {
    const out = tmp();
    const bin = path.resolve(import.meta.dirname, '../../../bin/openforge.js');
    const stdout = execFileSync('node', [bin, 'tasks', 'import', '--from', 'webvoyager', WEBVOYAGER, '--out', out]).toString();
    expect(stdout).toContain('imported 3 webvoyager tasks');
    expect(loadTasks(out)).toHaveLength(3);
    expect(() => execFileSync('node', [bin, 'tasks', 'import', '--from', 'swebench', WEBVOYAGER, '--out', out], { stdio: 'pipe' })).toThrow(
      /unknown task source "swebench"[\s\S]*webvoyager, mind2web, osworld/,
    );
    // an option the importer does not read is refused by name, not ignored
    expect(() =>
      execFileSync('node', [bin, 'tasks', 'import', '--from', 'webvoyager', WEBVOYAGER, '--out', tmp(), '--actions', out], { stdio: 'pipe' }),
    ).toThrow(/--actions does not apply to --from webvoyager[\s\S]*drop it/);
    expect(() =>
      execFileSync('node', [bin, 'tasks', 'import', '--from', 'osworld', WEBVOYAGER, '--out', tmp(), '--checkout', out, '--dataset', 'x@1'], { stdio: 'pipe' }),
    ).toThrow(/--dataset, --checkout do not apply to --from osworld[\s\S]*drop them \(osworld takes --cache, --actions\)/);
  });
});

describe('the judge answer parsers', () => {
  it('read WebJudge scores and verdicts', () => {
    expect(parseScore('The filters are visible.\nScore: 4')).toBe(4);
    expect(parseScore('Relevance is 2 out of 5... final: 3')).toBe(3);
    expect(parseScore('no number here')).toBe(0);
    expect(parseVerdict('All key points are met.\nStatus: success')).toBe('success');
    expect(parseVerdict('Status: "failure"')).toBe('failure');
    expect(parseVerdict('I think it worked')).toBe('failure');
  });
});

/**
 * A FAKE judge: a tiny local OpenAI-compatible chat server standing in for the LLM judge (no model
 * exists here). It answers each WebJudge stage by recognising the stage's system prompt.
 */
class FakeJudgeServer {
  requests: { system: string; user: unknown }[] = [];
  verdict = 'success';
  private server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { messages } = JSON.parse(body) as { messages: { role: string; content: unknown }[] };
      const system = String(messages[0]!.content);
      this.requests.push({ system, user: messages[1]!.content });
      const content = system.includes('key points a web agent')
        ? 'Key Points:\n1. AeroAPI plans are shown\n2. The plans are compared'
        : system.includes('Score: N')
          ? 'The pricing table is visible.\nScore: 5'
          : `The plans page is shown.\nStatus: ${this.verdict}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'fake', object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] }),
      );
    });
  });
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
  stop() {
    return new Promise((r) => this.server.close(r));
  }
}

describe('the generated grader with a judge endpoint', () => {
  const fake = new FakeJudgeServer();
  let taskDir: string;
  beforeAll(async () => {
    await fake.start();
    const out = tmp();
    importTasks('mind2web', MIND2WEB, out);
    taskDir = path.join(out, 'mind2web-ade4c09ad3fdb1607209750924cd232f');
  });
  afterAll(() => fake.stop());

  // Run asynchronously: the fake judge answers from this same process.
  async function grade(env: Record<string, string>): Promise<{ reward: number; record: Record<string, unknown>; stdout: string }> {
    const verifier = tmp();
    const shots = tmp();
    mkdirSync(shots, { recursive: true });
    // Two tiny PNGs stand in for the screenshots the harness kept.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
    writeFileSync(path.join(shots, '0001.png'), png);
    writeFileSync(path.join(shots, '0002.png'), png);
    const answer = path.join(tmp(), 'answer.txt');
    writeFileSync(answer, 'Basic is free, Standard costs $100/month.\n');
    const { stdout } = await promisify(execFile)('bash', [path.join(taskDir, 'tests/test.sh')], {
      env: {
        ...process.env,
        OPENFORGE_VERIFIER_DIR: verifier,
        OPENFORGE_SCREENSHOTS_DIR: shots,
        OPENFORGE_FINAL_ANSWER_FILE: answer,
        OPENFORGE_BROWSER_ENV_URL: 'http://127.0.0.1:9',
        ...env,
      },
    });
    const record = JSON.parse(readFileSync(path.join(verifier, 'reward.json'), 'utf8')) as Record<string, unknown>;
    return { reward: record.reward as number, record, stdout };
  }

  it('turns a judge verdict of success into reward 1, after key points and screenshot scoring', async () => {
    fake.requests = [];
    fake.verdict = 'success';
    const { reward, record } = await grade({ OPENFORGE_JUDGE_BASE_URL: fake.url, OPENFORGE_JUDGE_MODEL: 'judge' });
    expect(reward).toBe(1);
    expect(record).toMatchObject({ verdict: 'success', scores: [5, 5], key_screenshots: 2 });
    // key points, one score per screenshot, the verdict
    expect(fake.requests).toHaveLength(4);
    expect(JSON.stringify(fake.requests[0]!.user)).not.toContain('image_url');
    const verdictRequest = JSON.stringify(fake.requests[3]!.user);
    expect(verdictRequest).toContain('data:image/png;base64,');
    expect(verdictRequest).toContain('an unverified claim');
    expect(verdictRequest).toContain('AeroAPI plans are shown');
  });

  it('turns a failure verdict into 0, and scores 0 with a clear message when no judge is configured', async () => {
    fake.verdict = 'failure';
    expect((await grade({ OPENFORGE_JUDGE_BASE_URL: fake.url, OPENFORGE_JUDGE_MODEL: 'judge' })).reward).toBe(0);
    const unconfigured = await grade({ OPENFORGE_JUDGE_BASE_URL: '', OPENFORGE_JUDGE_MODEL: '' });
    expect(unconfigured.reward).toBe(0);
    expect(unconfigured.stdout).toContain('no judge configured: set OPENFORGE_JUDGE_BASE_URL');
  });
});
