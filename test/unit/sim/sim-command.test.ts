import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { simCommand } from '../../../src/cli/commands/sim.js';
import { UserError } from '../../../src/util/errors.js';
import { makeTask, removeTaskDirs } from './fixtures.js';
import { captureStdout } from '../../helpers/stdout.js';

afterAll(removeTaskDirs);
afterEach(() => vi.restoreAllMocks());

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('openforge sim', () => {
  it('serves until SIGTERM, labelled as a simulation, then closes', async () => {
    const task = makeTask();
    const output = captureStdout();
    const running = simCommand().parseAsync(['--policy', 'noisy:0.25', '--tasks', task.dir, '--port', '0'], { from: 'user' });
    const url = await waitFor(() => /serving (http:\/\/\S+\/v1)/.exec(output())?.[1]);
    expect(output()).toContain('(simulated model: no real LLM)');
    expect(output()).toContain('sim:noisy:0.25');

    const models = await (await fetch(`${url}/models`)).json();
    expect(models.data[0].id).toBe('sim-noisy-0.25');

    process.emit('SIGTERM');
    await running;
    expect(output()).toContain('stopped');
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it('refuses a policy it does not know, naming the allowed ones', async () => {
    await expect(simCommand().parseAsync(['--policy', 'gpt-5', '--tasks', '.', '--port', '0'], { from: 'user' })).rejects.toThrow(/sim:oracle, sim:noisy:<p>/);
  });

  it('needs --tasks for the oracle, and says replay needs a run store', async () => {
    await expect(simCommand().parseAsync(['--port', '0'], { from: 'user' })).rejects.toThrow(/--tasks is required for sim:oracle/);
    await expect(simCommand().parseAsync(['--policy', 'replay:r1', '--port', '0'], { from: 'user' })).rejects.toThrow(UserError);
    await expect(simCommand().parseAsync(['--policy', 'sim:replay:r1'], { from: 'user' })).rejects.toThrow(/run store/);
  });

  it('rejects a prefill or decode rate that is not a number above 0', async () => {
    for (const option of ['--prefill-tokens-per-s', '--decode-tokens-per-s']) {
      for (const bad of ['0', 'fast', '-5']) {
        const cmd = simCommand()
          .exitOverride()
          .configureOutput({ writeErr: () => {} });
        await expect(cmd.parseAsync([`${option}=${bad}`], { from: 'user' })).rejects.toThrow(
          `${option} takes a number of tokens a second above 0, got "${bad}"`,
        );
      }
    }
  });

  it('rejects a port that is not a number', async () => {
    const cmd = simCommand()
      .exitOverride()
      .configureOutput({ writeErr: () => {} });
    await expect(cmd.parseAsync(['--port', 'eighty'], { from: 'user' })).rejects.toThrow(
      /'--port <port>' argument 'eighty' is invalid. expected a port from 0 to 65535/,
    );
  });
});
