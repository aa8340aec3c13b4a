import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadTask, loadTasks } from '../../../src/config/task.js';
import { loadTaskServices } from '../../../src/config/task-services.js';
import { clawEvalImporter } from '../../../src/importers/claw-eval/index.js';
import { importerNamed } from '../../../src/importers/registry.js';

const CHECKOUT = path.resolve('test/fixtures/claw-eval');
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'of-claweval-'));
const read = (...p: string[]) => readFileSync(path.join(...p), 'utf8');

describe('openforge tasks import --from claw-eval', () => {
  it('writes each task in Harbor layout and names the ones it leaves out by cause', async () => {
    const out = tmp();
    const report = await clawEvalImporter.import(CHECKOUT, out);
    expect(importerNamed('claw-eval')).toBe(clawEvalImporter);
    expect(report.skipped).toEqual([
      { id: 'C03en_real_estate_finance', cause: expect.stringMatching(/^needs a simulated user \(user_agent\.enabled/) },
      { id: 'T073_web_search_injection', cause: expect.stringMatching(/^needs live web search .*web_real_injection.*SERP_DEV_KEY/) },
    ]);
    const ids = loadTasks(out).map((t) => t.id);
    for (const id of ['T002_email_triage', 'T018_ticket_triage', 'T028_api_config_audit', 'T032_escalation_budget_triage', 'T075_email_phishing_injection'])
      expect(ids).toContain(id);
    expect(ids).toContain('T093_pinbench_email_triage_report');
    expect(ids).toContain('T101_wal_recovery');
    // the Chinese peers are tasks of the benchmark too
    expect(ids).toContain('T001zh_email_triage');
    expect(report.written).toHaveLength(11);
  });

  it('gives the agent the prompt and each tool as an HTTP call on 127.0.0.1, and runs the mock services beside it', async () => {
    const out = tmp();
    await clawEvalImporter.import(CHECKOUT, out);
    const dir = path.join(out, 'T032_escalation_budget_triage');
    const task = loadTask(dir);
    expect(task.config.metadata).toMatchObject({ benchmark: 'claw-eval', source: 'tasks/T032_escalation_budget_triage/task.yaml' });
    expect(task.config.agent.timeout_sec).toBe(900);
    const instruction = read(dir, 'instruction.md');
    expect(instruction).toMatch(/^Your inbox has several customer complaint and escalation emails/);
    expect(instruction).toContain('### gmail_save_draft');
    expect(instruction).toContain('POST http://127.0.0.1:9100/gmail/drafts/save');
    expect(instruction).toContain('POST http://127.0.0.1:9110/crm/customers/get');
    expect(instruction).not.toContain('localhost');
    expect(instruction).toContain('"customer_id"');
    expect(read(dir, 'environment', 'Dockerfile')).toBe('FROM openforge/claw-eval\nCOPY workspace/ /workspace/\n');
    // the five services of task.yaml, each from the checkout's server, on its port, with its audit log for the grader
    const services = loadTaskServices(path.join(dir, 'environment'));
    expect(services.map((s) => s.name)).toEqual(['gmail', 'contacts', 'helpdesk', 'crm', 'finance']);
    expect(services[3]).toMatchObject({
      build: { context: 'mock-services', dockerfile: 'Dockerfile' },
      command: ['/bin/sh', '-c', 'python mock_services/crm/server.py'],
      env: { CRM_FIXTURES: 'tasks/T032_escalation_budget_triage/fixtures/crm/customers.json', PORT: '9110', ERROR_RATE: '0' },
      auditUrl: 'http://127.0.0.1:9110/crm/audit',
    });
    const mock = path.join(dir, 'environment', 'mock-services');
    expect(read(mock, 'mock_services', 'crm', 'server.py')).toBe(read(CHECKOUT, 'mock_services', 'crm', 'server.py'));
    expect(read(mock, 'tasks', 'T032_escalation_budget_triage', 'fixtures', 'crm', 'customers.json')).toBe(
      read(CHECKOUT, 'tasks', 'T032_escalation_budget_triage', 'fixtures', 'crm', 'customers.json'),
    );
    expect(read(mock, 'Dockerfile')).toMatch(/^FROM openforge\/claw-eval\n/);
  });

  it('puts their grader, its peer and their framework in tests/ unchanged, beside the adapter', async () => {
    const out = tmp();
    await clawEvalImporter.import(CHECKOUT, out);
    const tests = path.join(out, 'T018_ticket_triage', 'tests');
    const fw = path.join(tests, 'claw-eval');
    for (const f of [
      'tasks/T018_ticket_triage/grader.py',
      'tasks/T017zh_ticket_triage/grader.py',
      'src/claw_eval/models/scoring.py',
      'src/claw_eval/graders/llm_judge.py',
    ])
      expect(read(fw, f)).toBe(read(CHECKOUT, f));
    expect(read(tests, 'grade.py')).toBe(read('src/importers/claw-eval/grade.py'));
    expect(read(tests, 'test.sh')).toContain('exec python3 /tests/grade.py');
    expect(JSON.parse(read(tests, 'claw-eval.json'))).toEqual({
      task_id: 'T018_ticket_triage',
      task_dir: 'T018_ticket_triage',
      services: [{ name: 'helpdesk', port: 9107 }],
    });
    // a service without *_FIXTURES reads its default task's fixtures (helpdesk: T017zh's), which come along
    expect(
      existsSync(path.join(out, 'T018_ticket_triage', 'environment', 'mock-services', 'tasks', 'T017zh_ticket_triage', 'fixtures', 'helpdesk', 'tickets.json')),
    ).toBe(true);
    // T101: no services; its files under /workspace, the grader-only verify script only in tests/
    const wal = path.join(out, 'T101_wal_recovery');
    expect(existsSync(path.join(wal, 'environment', 'docker-compose.yaml'))).toBe(false);
    expect(readFileSync(path.join(wal, 'environment', 'workspace', 'fixtures', 'test.db-wal'))).toEqual(
      readFileSync(path.join(CHECKOUT, 'tasks', 'T101_wal_recovery', 'fixtures', 'test.db-wal')),
    );
    expect(existsSync(path.join(wal, 'environment', 'workspace', 'fixtures', 'verify_recovery.py'))).toBe(false);
    expect(existsSync(path.join(wal, 'tests', 'claw-eval', 'tasks', 'T101_wal_recovery', 'fixtures', 'verify_recovery.py'))).toBe(true);
    expect(read(wal, 'instruction.md')).not.toContain('## Tools');
  });

  it('leaves out a task whose files, peer grader or service the checkout does not hold, naming what is missing', async () => {
    const checkout = tmp();
    cpSync(CHECKOUT, checkout, { recursive: true });
    rmSync(path.join(checkout, 'tasks', 'T101_wal_recovery', 'fixtures', 'test.db-wal'));
    rmSync(path.join(checkout, 'tasks', 'T017zh_ticket_triage'), { recursive: true });
    rmSync(path.join(checkout, 'mock_services', 'config'), { recursive: true });
    const yaml = path.join(checkout, 'tasks', 'T093_pinbench_email_triage_report', 'task.yaml');
    writeFileSync(
      yaml,
      read(yaml).replace(
        'tasks/T093_pinbench_email_triage_report/fixtures/gmail/inbox.json',
        'tasks/T093_pinbench_email_triage_report/fixtures/gmail/gone.json',
      ),
    );
    const report = await clawEvalImporter.import(checkout, tmp());
    const causes = Object.fromEntries(report.skipped.map((s) => [s.id, s.cause]));
    expect(causes.T101_wal_recovery).toMatch(/^its file fixtures\/test\.db-wal is not in the checkout \(media kept on Hugging Face/);
    expect(causes.T018_ticket_triage).toMatch(/loads the grader of T017zh_ticket_triage, which is not in the checkout/);
    expect(causes.T028_api_config_audit).toMatch(/^service config: mock_services\/config is not in the checkout/);
    expect(causes.T027zh_api_config_audit).toMatch(/^service config/);
    expect(causes.T093_pinbench_email_triage_report).toMatch(/^service gmail: its fixtures .*gone\.json are not in the checkout/);
  });

  it('refuses a folder that is not a claw-eval checkout, naming what is missing', async () => {
    await expect(clawEvalImporter.import(tmp(), tmp())).rejects.toThrow(/is not a claw-eval checkout: tasks, mock_services\/_base\.py, src\/claw_eval\/models/);
  });

  it('writes a compose file whose health checks and audit logs name each service', async () => {
    const out = tmp();
    await clawEvalImporter.import(CHECKOUT, out);
    const compose = parseYaml(read(out, 'T002_email_triage', 'environment', 'docker-compose.yaml')) as {
      services: Record<string, { healthcheck: { test: string[] }; 'x-openforge-audit': string }>;
    };
    expect(Object.keys(compose.services)).toEqual(['gmail']);
    expect(compose.services.gmail!['x-openforge-audit']).toBe('http://127.0.0.1:9100/gmail/audit');
    expect(compose.services.gmail!.healthcheck.test.join(' ')).toContain('http://127.0.0.1:9100/gmail/audit');
  });
});
