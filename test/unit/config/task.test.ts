import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { internetNotGiven, loadTask, loadTasks } from '../../../src/config/task.js';
import { makeSuite } from '../../helpers/tasks.js';

describe('tasks in Harbor layout', () => {
  it('loads task.toml with defaults, the instruction and the folders', () => {
    const suite = makeSuite([{ id: 'one', toml: '[task]\nname = "one"\n[agent]\ntimeout_sec = 45\n[metadata]\nanything = "kept"\n' }]);
    const task = loadTask(path.join(suite, 'one'));
    expect(task.id).toBe('one');
    expect(task.config.agent.timeout_sec).toBe(45);
    expect(task.config.verifier.timeout_sec).toBe(120);
    expect(task.config.environment.allow_internet).toBe(false);
    expect(task.instruction).toMatch(/done/);
    expect(task.solutionDir).toBe(path.join(suite, 'one', 'solution'));
  });

  it('reads workdir, Harbor size strings and the internet a task asks for, and says when a run does not give it', () => {
    const suite = makeSuite([
      {
        id: 'net',
        toml: '[environment]\nworkdir = "/app"\nmemory = "2G"\nstorage = "512M"\nallow_internet = true\n[verifier]\nallow_internet = true\n',
      },
      { id: 'rel', toml: '[environment]\nworkdir = "app"\n' },
    ]);
    const task = loadTask(path.join(suite, 'net'));
    expect(task.config.environment).toMatchObject({ workdir: '/app', memory_mb: 2048 });
    expect(task.config.environment.storage_mb).toBeUndefined();
    expect(internetNotGiven(task, 'proxy-only')).toBe(
      "task net asks for the internet ([environment] allow_internet, [verifier] allow_internet = true), but this run's network is proxy-only: it runs without (network: public gives every rollout the internet)",
    );
    expect(internetNotGiven(task, 'public')).toBeUndefined();
    // a backend that gives such rollouts their own egress on a proxy-only network; `none` still holds
    expect(internetNotGiven(task, 'proxy-only', true)).toBeUndefined();
    expect(internetNotGiven(task, 'none', true)).toMatch(/network is none: it runs without \(network: proxy-only gives it to such rollouts alone\)/);
    expect(() => loadTask(path.join(suite, 'rel'))).toThrow(/environment\.workdir.*absolute path/);
  });

  it('loads a suite sorted by id and the real claw-basic suite', () => {
    const suite = makeSuite([{ id: 'b' }, { id: 'a' }]);
    expect(loadTasks(suite).map((t) => t.id)).toEqual(['a', 'b']);
    expect(loadTasks('envs/claw-basic').length).toBeGreaterThanOrEqual(12);
  });

  it('names the file and key of bad TOML and bad values', () => {
    const suite = makeSuite([
      { id: 'x', toml: '[agent]\ntimeout_sec = -1\n' },
      { id: 'y', toml: '[agent\n' },
    ]);
    expect(() => loadTask(path.join(suite, 'x'))).toThrow(/x\/task\.toml: agent\.timeout_sec/);
    expect(() => loadTask(path.join(suite, 'y'))).toThrow(/y\/task\.toml: invalid TOML/);
  });

  it('requires tests/test.sh and rejects duplicate ids and empty suites', () => {
    const suite = makeSuite([
      { id: 'a', toml: '[task]\nname = "same"\n' },
      { id: 'b', toml: '[task]\nname = "same"\n' },
    ]);
    expect(() => loadTasks(suite)).toThrow(/share the id "same"/);
    rmSync(path.join(suite, 'a', 'tests', 'test.sh'));
    expect(() => loadTask(path.join(suite, 'a'))).toThrow(/missing tests\/test\.sh/);
    const empty = makeSuite([]);
    expect(() => loadTasks(empty)).toThrow(/holds no task/);
    writeFileSync(path.join(empty, 'note.txt'), 'x');
    expect(() => loadTasks(path.join(empty, 'nope'))).toThrow(/does not exist/);
  });

  it('refuses a task name that would reach outside its folders (../x) or is no plain name', () => {
    const suite = makeSuite([
      { id: 'dots', toml: '[task]\nname = "../x"\n' },
      { id: 'slash', toml: '[task]\nname = "a/b"\n' },
      { id: 'space', toml: '[task]\nname = "has space"\n' },
      { id: 'fine', toml: '[task]\nname = "Fine_1.2-x"\n' },
    ]);
    for (const bad of ['dots', 'slash', 'space']) {
      expect(() => loadTask(path.join(suite, bad))).toThrow(/task name ".*" \(\[task\] name in .*task\.toml\) is not a safe name[\s\S]*letters, digits/);
    }
    expect(loadTask(path.join(suite, 'fine')).id).toBe('Fine_1.2-x');
  });
});
