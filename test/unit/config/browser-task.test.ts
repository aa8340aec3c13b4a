import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSettings, loadTask } from '../../../src/config/task.js';
import { makeSuite } from '../../helpers/tasks.js';

function load(toml: string) {
  const suite = makeSuite([{ id: 't', toml: `[task]\nname = "t"\n${toml}` }]);
  return loadTask(path.join(suite, 't'));
}

describe('task.toml: browser tasks', () => {
  it('reads kind = "browser" with start_url and viewport', () => {
    const task = load(
      '[environment]\nkind = "browser"\n[environment.browser]\nstart_url = "http://127.0.0.1:8000/todo"\nviewport = { width = 1024, height = 768 }\n',
    );
    expect(task.config.environment.kind).toBe('browser');
    expect(browserSettings(task)).toEqual({ start_url: 'http://127.0.0.1:8000/todo', viewport: { width: 1024, height: 768 }, setup_timeout_sec: 180 });
  });

  it('defaults the viewport to 1280x800 and leaves workspace tasks without browser settings', () => {
    expect(browserSettings(load('[environment]\nkind = "browser"\n'))?.viewport).toEqual({ width: 1280, height: 800 });
    const plain = load('');
    expect(plain.config.environment.kind).toBe('workspace');
    expect(browserSettings(plain)).toBeUndefined();
  });

  it('names the key and the fix for bad browser fields', () => {
    expect(() => load('[environment]\nkind = "vm"\n')).toThrow(
      /t\/task\.toml: environment\.kind: kind must be "workspace" \(the default\), "browser" or "desktop"/,
    );
    expect(() => load('[environment.desktop]\nlaunch = ["mousepad"]\n')).toThrow(/environment\.kind: .*add kind = "desktop"/);
    expect(() => load('[environment]\nkind = "desktop"\n[environment.desktop]\nlaunch = "mousepad"\n')).toThrow(/environment\.desktop\.launch/);
    expect(() => load('[environment.browser]\nstart_url = "http://127.0.0.1:8000/"\n')).toThrow(/environment\.kind: .*add kind = "browser"/);
    expect(() => load('[environment]\nkind = "browser"\n[environment.browser]\nstart_url = "127.0.0.1:8000"\n')).toThrow(
      /environment\.browser\.start_url: start_url must be an absolute http\(s\)/,
    );
    expect(() => load('[environment]\nkind = "browser"\n[environment.browser]\nviewport = { width = 50, height = 800 }\n')).toThrow(
      /environment\.browser\.viewport\.width: width must be at least 100 px/,
    );
    expect(() => load('[environment]\nkind = "browser"\n[environment.browser]\nviewport = { width = 1280 }\n')).toThrow(
      /environment\.browser\.viewport\.height/,
    );
    expect(() => load('[environment]\nkind = "browser"\n[environment.browser]\nstarturl = "http://x/"\n')).toThrow(/environment\.browser.*starturl/);
  });
});
