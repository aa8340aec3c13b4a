import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RULES = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };

/**
 * One planted import per layer rule (from → to), each in a tree laid out like src/. The project's own src/
 * is checked by `npm run lint:deps`; this shows the same check failing on each kind of violation.
 */
const PLANTED: { rule: string; from: string; imports: string }[] = [
  { rule: 'no-circular', from: 'proxy/calls/a.ts', imports: './b.js' },
  { rule: 'no-circular', from: 'proxy/calls/b.ts', imports: './a.js' },
  { rule: 'records-import-nothing', from: 'records/call.ts', imports: '../util/errors.js' },
  { rule: 'util-imports-only-util', from: 'util/errors.ts', imports: '../records/rollout.js' },
  { rule: 'engine-wire-imports-only-records', from: 'engine-wire/chat-wire.ts', imports: '../store/store.js' },
  { rule: 'families-know-only-themselves', from: 'families/chatml/tokenizer.ts', imports: '../../sim/server.js' },
  { rule: 'store-imports-only-records-and-engine-wire', from: 'store/store.ts', imports: '../proxy/session.js' },
  { rule: 'proxy-reaches-the-store-through-its-sink', from: 'proxy/session.ts', imports: '../store/schema.js' },
  { rule: 'sandbox-knows-no-harness-nor-orchestrator', from: 'sandbox/docker/images.ts', imports: '../../harness/layer.js' },
  { rule: 'harness-adapters-know-no-orchestrator', from: 'harness/layer.ts', imports: '../rollout/run.js' },
  { rule: 'training-data-knows-no-orchestrator', from: 'trajectory/stats.ts', imports: '../rollout/sessions.js' },
  { rule: 'sim-knows-no-orchestrator', from: 'sim/server.ts', imports: '../sandbox/types.js' },
  { rule: 'config-knows-no-orchestrator', from: 'config/run.ts', imports: '../trajectory/stats.js' },
  { rule: 'in-container-code-stays-self-contained', from: 'in-container/agents/forge-agent.ts', imports: '../../config/task.js' },
  { rule: 'in-container-code-uses-only-its-own-packages', from: 'in-container/browser-env/app.ts', imports: 'dockerode' },
  { rule: 'only-the-cli-imports-the-inspector-and-service', from: 'rollout/replay.ts', imports: '../inspector/views.js' },
  { rule: 'nothing-imports-the-cli', from: 'service/server.ts', imports: '../cli/main.js' },
  { rule: 'no-unresolvable-imports', from: 'util/paths.ts', imports: './no-such-module.js' },
];

/** A project folder holding `files` under src/, with this project's tsconfig and node_modules. */
function plantedProject(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'of-layers-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, 'src', name)), { recursive: true });
    writeFileSync(path.join(dir, 'src', name), text);
  }
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src/**/*.ts'] }),
  );
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** The rule each violation the project's dependency rules find in `dir` breaks, as "rule from → to". */
function violations(dir: string): string[] {
  const bin = path.join(ROOT, 'node_modules/.bin/depcruise');
  let out: string;
  try {
    out = execFileSync(bin, ['src', '--config', path.join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
  } catch (err) {
    out = (err as { stdout: string }).stdout; // exits non-zero when it finds violations
  }
  const report = JSON.parse(out) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return report.summary.violations.map((v) => `${v.rule.name} ${v.from} → ${v.to}`);
}

describe('the layer rules (.dependency-cruiser.cjs)', () => {
  it('catch a planted violation of each rule, and nothing in a tree that keeps them', () => {
    const files: Record<string, string> = {};
    const touched = new Set<string>();
    for (const p of PLANTED) {
      files[p.from] = `${files[p.from] ?? ''}import '${p.imports}';\n`;
      touched.add(p.from);
      if (p.imports.startsWith('.')) {
        const target = path.posix.join(path.posix.dirname(p.from), p.imports).replace(/\.js$/, '.ts');
        if (!p.imports.includes('no-such-module')) files[target] ??= 'export {};\n';
      }
    }
    const found = violations(plantedProject(files));
    // a circle is reported once, at either of its files
    for (const p of PLANTED) {
      const at = PLANTED.filter((q) => q.rule === p.rule).map((q) => `${p.rule} src/${q.from} →`);
      expect(
        found.some((v) => at.some((start) => v.startsWith(start))),
        `${p.rule}: ${p.from} → ${p.imports}`,
      ).toBe(true);
    }
    // every rule of the config has its planted violation
    expect(new Set(RULES.forbidden.map((r) => r.name))).toEqual(new Set(PLANTED.map((p) => p.rule)));

    const clean = violations(
      plantedProject({
        'records/call.ts': 'export type Id = string;\n',
        'engine-wire/chat-wire.ts': "import type { Id } from '../records/call.js';\nexport type Wire = Id;\n",
        'store/store.ts': "import type { Wire } from '../engine-wire/chat-wire.js';\nexport type Row = Wire;\n",
        'rollout/run.ts': "import type { Row } from '../store/store.js';\nexport type Run = Row;\n",
        'cli/main.ts': "import type { Run } from '../rollout/run.js';\nexport type Main = Run;\n",
      }),
    );
    expect(clean).toEqual([]);
  });
});
