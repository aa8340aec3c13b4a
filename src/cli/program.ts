import { Command } from 'commander';

/**
 * Each command's module, loaded only when that command runs (or for the full help): importing every command
 * pulls in Docker, fastify, zod, the Kubernetes client… and cost 0.7 s before any command started.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand(),
  images: async () => (await import('./commands/images.js')).imagesCommand(),
  tasks: async () => (await import('./commands/tasks.js')).tasksCommand(),
  sim: async () => (await import('./commands/sim.js')).simCommand(),
  reap: async () => (await import('./commands/reap.js')).reapCommand(),
  proxy: async () => (await import('./commands/proxy.js')).proxyCommand(),
  serve: async () => (await import('./commands/serve.js')).serveCommand(),
  export: async () => (await import('./commands/export.js')).exportCommand(),
  stats: async () => (await import('./commands/stats.js')).statsCommand(),
  compare: async () => (await import('./commands/compare.js')).compareCommand(),
  inspect: async () => (await import('./commands/inspect.js')).inspectCommand(),
  debug: async () => (await import('./commands/debug.js')).debugCommand(),
  shell: async () => (await import('./commands/shell.js')).shellCommand(),
  replay: async () => (await import('./commands/replay.js')).replayCommand(),
  fork: async () => (await import('./commands/fork.js')).forkCommand(),
  k8s: async () => (await import('./commands/k8s.js')).k8sCommand(),
  promote: async () => (await import('./commands/promote.js')).promoteCommand(),
};

/** The `openforge` program with the named commands (every command when `names` is absent). */
export async function openforgeProgram(names: readonly string[] = Object.keys(COMMANDS)): Promise<Command> {
  const program = new Command('openforge')
    .description('Run agent rollouts in real harnesses, in containers, through a recording proxy')
    .version('0.1.0')
    .showHelpAfterError();
  for (const command of await Promise.all(names.map((name) => COMMANDS[name]!()))) program.addCommand(command);
  return program;
}

/** The commands `argv` needs: the one it names, none for --version alone, else all of them (help, a typo). */
export function commandsFor(argv: readonly string[]): string[] {
  const named = argv.slice(2).find((arg) => !arg.startsWith('-'));
  const versionOnly = argv.slice(2).some((arg) => arg === '-V' || arg === '--version') && named === undefined;
  return named !== undefined && named in COMMANDS ? [named] : versionOnly ? [] : Object.keys(COMMANDS);
}
