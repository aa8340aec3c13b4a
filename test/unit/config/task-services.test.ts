import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskServices } from '../../../src/config/task-services.js';

function envDir(compose: string, files: Record<string, string> = {}): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-compose-')), 'environment');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'docker-compose.yaml'), compose);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

describe('loadTaskServices', () => {
  it('reads the services beside main from docker-compose.yaml', () => {
    const dir = envDir(
      `services:
  main:
    build: .
  db:
    image: postgres:16
    environment: [POSTGRES_PASSWORD=pw, EMPTY]
    healthcheck: { test: "pg_isready", interval: 500ms, timeout: 2s, retries: 5 }
  api:
    build: { context: api, dockerfile: Dockerfile.api }
    command: python3 server.py
    environment: { PORT: 9100, DEBUG: true }
    x-openforge-audit: http://127.0.0.1:9100/api/audit
`,
      { 'api/Dockerfile.api': 'FROM openforge/workspace\n' },
    );
    expect(loadTaskServices(dir)).toEqual([
      {
        name: 'db',
        image: 'postgres:16',
        env: { POSTGRES_PASSWORD: 'pw', EMPTY: '' },
        healthcheck: { test: ['CMD-SHELL', 'pg_isready'], intervalSec: 0.5, timeoutSec: 2, retries: 5 },
      },
      {
        name: 'api',
        build: { context: 'api', dockerfile: 'Dockerfile.api' },
        env: { PORT: '9100', DEBUG: 'true' },
        command: ['/bin/sh', '-c', 'python3 server.py'],
        auditUrl: 'http://127.0.0.1:9100/api/audit',
      },
    ]);
  });

  it('has none without a compose file or an environment folder', () => {
    expect(loadTaskServices(undefined)).toEqual([]);
    expect(loadTaskServices(mkdtempSync(path.join(os.tmpdir(), 'of-compose-')))).toEqual([]);
  });

  it('refuses what it would not honour, naming the service and the fix', () => {
    expect(() => loadTaskServices(envDir('services:\n  db:\n    image: x\n    volumes: [data:/var/lib]\n'))).toThrow(
      /service db sets volumes, which OpenForge does not give/,
    );
    expect(() => loadTaskServices(envDir('services:\n  db:\n    environment: {}\n'))).toThrow(/service db has neither image: nor build:/);
    expect(() => loadTaskServices(envDir('services:\n  db:\n    build: ../../elsewhere\n'))).toThrow(/outside the task's environment/);
    expect(() => loadTaskServices(envDir('services:\n  db:\n    build: db\n'))).toThrow(/db\/Dockerfile does not exist/);
    expect(() => loadTaskServices(envDir('services:\n  db:\n    image: x\n    x-openforge-audit: http://example.com/audit\n'))).toThrow(
      /must be an http URL on 127\.0\.0\.1/,
    );
    expect(() => loadTaskServices(envDir('services:\n  db:\n    image: x\n    healthcheck: { test: "true", interval: soon }\n'))).toThrow(
      /"soon" is not a duration/,
    );
  });
});
