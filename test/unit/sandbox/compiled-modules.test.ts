import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleClosure } from '../../../src/sandbox/docker/compiled-modules.js';

/** A compiled tree under a fresh folder: { 'in-container/browser-env/server/main.js': '…' }. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'of-modules-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

// The browser image copies the env server's modules and what they import from the rest of the project.
describe('the modules an image needs from dist/', () => {
  it('follows static, side-effect and dynamic relative imports, across folders, and leaves the rest out', () => {
    const root = tree({
      'in-container/browser-env/server/main.js':
        "import { a } from './app.js';\nimport '../actions.js';\nconst m = await import(\"./mcp.js\");\nimport Fastify from 'fastify';\n",
      'in-container/browser-env/server/app.js': "import { clientErrorAnswer } from '../../../util/client-error.js';\n",
      'in-container/browser-env/server/mcp.js': 'export const mcp = 1;\n',
      'in-container/browser-env/actions.js': 'export {};\n',
      'util/client-error.js': "import http from 'node:http';\nexport { x } from './shared.js';\n",
      'util/shared.js': 'export const x = 1;\n',
      'util/unused.js': 'export const y = 1;\n',
      'in-container/graders/webjudge.js': "import '../../util/unused.js';\n",
    });
    expect(moduleClosure(root, ['in-container/browser-env/server/main.js'])).toEqual([
      'in-container/browser-env/actions.js',
      'in-container/browser-env/server/app.js',
      'in-container/browser-env/server/main.js',
      'in-container/browser-env/server/mcp.js',
      'util/client-error.js',
      'util/shared.js',
    ]);
  });

  it('names a module that is imported but missing, and one outside the tree', () => {
    const missing = tree({ 'in-container/browser-env/server/main.js': "import './gone.js';\n" });
    expect(() => moduleClosure(missing, ['in-container/browser-env/server/main.js'])).toThrow(
      /in-container\/browser-env\/server\/gone\.js is imported but missing.*npm run build/,
    );
    const outside = tree({ 'envs/main.js': "import '../../elsewhere.js';\n" });
    expect(() => moduleClosure(outside, ['envs/main.js'])).toThrow(/envs\/main\.js imports \.\.\/\.\.\/elsewhere\.js, outside/);
  });

  it('finds every module the built env server imports in dist/', () => {
    const dist = path.resolve(import.meta.dirname, '../../../dist');
    const needed = moduleClosure(dist, ['in-container/browser-env/server/main.js']);
    expect(needed).toContain('util/client-error.js');
    // code that runs inside a container reaches nothing of the host's layers
    expect(needed.filter((name) => !name.startsWith('in-container/') && !name.startsWith('util/'))).toEqual([]);
  });
});
