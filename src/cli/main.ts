import { UserError } from '../util/errors.js';
import { commandsFor, openforgeProgram } from './program.js';

async function main(argv: string[]): Promise<void> {
  const program = await openforgeProgram(commandsFor(argv));
  await program.parseAsync(argv);
}

// `openforge … | head`: a reader that stops reading ends the output, not in a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

main(process.argv).catch((err: unknown) => {
  if (err instanceof UserError) {
    process.stderr.write(`openforge: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`openforge: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
