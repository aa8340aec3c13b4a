import type Docker from 'dockerode';
import { UserError } from '../../util/errors.js';
import { LABEL_ROLLOUT } from '../labels.js';

/** The running container of a rollout (kept by `openforge debug`); a clear error when it is gone. */
export async function keptContainer(docker: Docker, rolloutId: string): Promise<Docker.Container> {
  const found = await docker.listContainers({ filters: { label: [`${LABEL_ROLLOUT}=${rolloutId}`], status: ['running'] } });
  if (found.length === 0) {
    const kept = await docker.listContainers({ filters: { label: [LABEL_ROLLOUT], status: ['running'] } });
    const ids = kept.map((c) => c.Labels[LABEL_ROLLOUT]).filter(Boolean);
    throw new UserError(
      `no running container for rollout ${rolloutId}: it is gone (containers are removed after their rollout, and \`openforge debug\` removes the one it kept when it exits)`,
      `run \`openforge debug <task-dir>\` and keep it open while you use the shell${ids.length ? `; containers running now: ${ids.join(', ')}` : ''}`,
    );
  }
  return docker.getContainer(found[0]!.Id);
}

/**
 * `docker exec -it`: the user's terminal attached to a shell in the container. With a TTY, stdin goes
 * raw and the terminal size follows the window; without one (pipes, tests), stdout and stderr are
 * demultiplexed and the end of stdin closes the shell's input. Resolves with the command's exit code.
 */
export async function attachShell(
  docker: Docker,
  container: Docker.Container,
  command: string[],
  io: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream },
): Promise<number> {
  const tty = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  const exec = await container.exec({
    Cmd: command,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: tty,
    Env: [`TERM=${process.env.TERM ?? 'xterm-256color'}`],
  });
  const stream = await exec.start({ hijack: true, stdin: true, Tty: tty });
  if (tty) stream.pipe(io.stdout);
  else docker.modem.demuxStream(stream, io.stdout, io.stderr);
  const resize = () => void exec.resize({ h: io.stdout.rows, w: io.stdout.columns }).catch(() => undefined);
  if (tty) {
    io.stdin.setRawMode(true);
    resize();
    io.stdout.on('resize', resize);
  }
  io.stdin.pipe(stream);
  io.stdin.on('end', () => stream.end());
  io.stdin.resume();
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
  } finally {
    io.stdin.unpipe(stream);
    if (tty) {
      io.stdin.setRawMode(false);
      io.stdout.off('resize', resize);
    }
    io.stdin.pause();
  }
  return (await exec.inspect()).ExitCode ?? 0;
}
