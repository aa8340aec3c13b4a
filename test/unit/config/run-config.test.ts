import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../../src/config/run.js';
import { UserError } from '../../../src/util/errors.js';

function yamlFile(body: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'of-cfg-')), 'run.yaml');
  writeFileSync(file, body);
  return file;
}

function errorOf(fn: () => unknown): UserError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UserError) return err;
    throw err;
  }
  throw new Error('expected a UserError');
}

describe('run.yaml', () => {
  it('fills defaults and resolves paths against the file', () => {
    const file = yamlFile('tasks: suite\n');
    const { config, taskPaths, outputDir } = loadRunConfig(file);
    expect(config).toMatchObject({ harness: 'forge-agent', rollouts_per_task: 1, concurrency: 4, network: 'proxy-only', backend: 'docker' });
    expect(config.model).toMatchObject({ upstream: 'sim:oracle', name: 'policy' });
    expect(taskPaths).toEqual([path.join(path.dirname(file), 'suite')]);
    expect(outputDir).toBe(path.join(path.dirname(file), 'runs'));
  });

  it('lets CLI overrides win and ignores undefined ones', () => {
    const { config } = loadRunConfig(yamlFile('tasks: s\nconcurrency: 2\n'), { concurrency: 8, harness: undefined });
    expect(config.concurrency).toBe(8);
    expect(config.harness).toBe('forge-agent');
  });

  it('names the file, each bad key and the allowed values', () => {
    const file = yamlFile('tasks: s\nharness: gpt\nnetwork: wide\nwarm_pool: -1\nresources:\n  memory_mb: 1\nmodel:\n  upstreem: x\n');
    const err = errorOf(() => loadRunConfig(file));
    expect(err.message).toContain(`${file}: harness:`);
    expect(err.message).toMatch(/forge-agent/);
    expect(err.message).toContain(`${file}: network:`);
    expect(err.message).toMatch(/proxy-only/);
    expect(err.message).toContain(`${file}: warm_pool:`);
    expect(err.message).toContain(`${file}: resources.memory_mb:`);
    expect(err.message).toMatch(/upstreem/);
  });

  it('takes replicas of a model served at a URL, and names what is wrong with them otherwise', () => {
    const { config } = loadRunConfig(
      yamlFile('tasks: s\nmodel:\n  upstream: http://10.0.0.1:8000/v1\n  replicas: [http://10.0.0.2:8000/v1, https://gpu-3.lan/v1]\n'),
    );
    expect(config.model.replicas).toEqual(['http://10.0.0.2:8000/v1', 'https://gpu-3.lan/v1']);
    // absent by default: configs without it keep their hash
    expect(loadRunConfig(yamlFile('tasks: s\n')).config.model).not.toHaveProperty('replicas');

    const simFile = yamlFile('tasks: s\nmodel:\n  replicas: [http://10.0.0.2:8000/v1]\n');
    expect(errorOf(() => loadRunConfig(simFile)).message).toContain(
      `${simFile}: model.replicas: replicas are more servers of the model at upstream, which is "sim:oracle"`,
    );
    const badFile = yamlFile('tasks: s\nmodel:\n  upstream: http://10.0.0.1:8000/v1\n  replicas: [gpu-2:8000]\n');
    expect(errorOf(() => loadRunConfig(badFile)).message).toMatch(/model\.replicas\.0: expected an http\(s\) base URL/);
  });

  it('rejects a missing tasks key, bad YAML, a non-mapping and a missing file', () => {
    expect(errorOf(() => loadRunConfig(yamlFile('harness: nop\n'))).message).toMatch(/tasks/);
    expect(errorOf(() => loadRunConfig(yamlFile('tasks: [unclosed\n'))).message).toMatch(/invalid YAML/);
    expect(errorOf(() => loadRunConfig(yamlFile('- a\n- b\n'))).message).toMatch(/expected a mapping/);
    expect(errorOf(() => loadRunConfig('/no/such/run.yaml')).message).toMatch(/does not exist/);
  });

  it('refuses network none for a harness that needs the model', () => {
    expect(errorOf(() => loadRunConfig(yamlFile('tasks: s\nnetwork: none\n'))).message).toMatch(/no way to reach the model proxy/);
    expect(loadRunConfig(yamlFile('tasks: s\nnetwork: none\nharness: oracle\n')).config.network).toBe('none');
  });

  it('takes extra harness environment and names a bad variable name', () => {
    expect(loadRunConfig(yamlFile('tasks: s\nharness_env:\n  CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES: "1"\n')).config.harness_env).toEqual({
      CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES: '1',
    });
    expect(loadRunConfig(yamlFile('tasks: s\n')).config.harness_env).toEqual({});
    expect(errorOf(() => loadRunConfig(yamlFile('tasks: s\nharness_env:\n  "A B": x\n'))).message).toMatch(/harness_env.*environment variable name/);
  });
});
