import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/config/task.js';
import { readTree } from '../../../src/sandbox/docker/archive.js';
import { ImageBuilder } from '../../../src/sandbox/docker/images.js';
import { makeSuite } from '../../helpers/tasks.js';

// A task's image build context is its environment/ folder. Suites share files through symbolic links
// (environment/site/kit -> ../../../_kit/site): the builder follows links that stay inside the suite and
// refuses the rest. Tags are computed from the inputs alone: no engine call is made.
const builder = new ImageBuilder(new Docker());
const KIT = { 'site.mjs': 'export const kit = 1;\n', 'kit.css': 'body { margin: 0 }\n' };

/** A suite with one task "shop" whose environment/site/kit is a copy of the kit, or a link to `link`. */
function suiteWithKit(kit: { copy: true } | { link: (suite: string) => string }): string {
  const suite = makeSuite([{ id: 'shop' }]);
  mkdirSync(path.join(suite, '_kit/site'), { recursive: true });
  for (const [f, text] of Object.entries(KIT)) writeFileSync(path.join(suite, '_kit/site', f), text);
  const site = path.join(suite, 'shop/environment/site');
  mkdirSync(site, { recursive: true });
  writeFileSync(path.join(site, 'app.mjs'), 'import "./kit/site.mjs";\n');
  if ('copy' in kit) {
    mkdirSync(path.join(site, 'kit'));
    for (const [f, text] of Object.entries(KIT)) writeFileSync(path.join(site, 'kit', f), text);
  } else symlinkSync(kit.link(suite), path.join(site, 'kit'));
  return suite;
}

describe('task image build context with symbolic links', () => {
  it('follows a link inside the suite: the files are in the context and the tag equals that of a copy', () => {
    const linked = loadTask(path.join(suiteWithKit({ link: () => '../../../_kit/site' }), 'shop'));
    const copied = loadTask(path.join(suiteWithKit({ copy: true }), 'shop'));
    const files = readTree(linked.environmentDir!, '', { symlinksWithin: path.dirname(linked.dir) });
    expect(files.map((f) => f.name).sort()).toEqual(['Dockerfile', 'site/app.mjs', 'site/kit/kit.css', 'site/kit/site.mjs']);
    expect(files.find((f) => f.name === 'site/kit/site.mjs')!.content.toString()).toBe(KIT['site.mjs']);
    expect(builder.taskImageTag(linked)).toBe(builder.taskImageTag(copied));
  });

  it('changes the tag when the linked content changes', () => {
    const suite = suiteWithKit({ link: () => '../../../_kit/site' });
    const before = builder.taskImageTag(loadTask(path.join(suite, 'shop')));
    writeFileSync(path.join(suite, '_kit/site/site.mjs'), 'export const kit = 2;\n');
    expect(builder.taskImageTag(loadTask(path.join(suite, 'shop')))).not.toBe(before);
  });

  it('refuses a link that leads outside the suite, naming the link and the suite', () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'of-outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'not for the image\n');
    const suite = suiteWithKit({ link: () => outside });
    const task = loadTask(path.join(suite, 'shop'));
    expect(() => builder.taskImageTag(task)).toThrow(/shop\/environment\/site\/kit is a symbolic link to .*of-outside-.*, outside .*of-suite-/);
    expect(() => builder.taskImageTag(task)).toThrow(/may only point inside its suite folder/);
  });

  it('refuses a relative link that climbs out of the suite, and a dangling link', () => {
    const escaping = loadTask(path.join(suiteWithKit({ link: () => '../../../../' }), 'shop'));
    expect(() => builder.taskImageTag(escaping)).toThrow(/is a symbolic link to .*, outside /);
    const dangling = loadTask(path.join(suiteWithKit({ link: () => '../../../_kit/nope' }), 'shop'));
    expect(() => builder.taskImageTag(dangling)).toThrow(/site\/kit is a symbolic link to \.\.\/\.\.\/\.\.\/_kit\/nope, which does not exist/);
  });

  it('refuses a link to a folder that contains it (a loop)', () => {
    const looping = loadTask(path.join(suiteWithKit({ link: () => '..' }), 'shop'));
    expect(() => builder.taskImageTag(looping)).toThrow(/a folder that contains it/);
  });

  it('skips links when no folder is allowed (plain copies keep their old behaviour)', () => {
    const suite = suiteWithKit({ link: () => '../../../_kit/site' });
    expect(
      readTree(path.join(suite, 'shop/environment'))
        .map((f) => f.name)
        .sort(),
    ).toEqual(['Dockerfile', 'site/app.mjs']);
  });
});
