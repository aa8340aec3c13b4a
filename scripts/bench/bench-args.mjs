// The bench scripts' command lines: node:util's parseArgs, plus `--help` (the script's opening comment)
// and a one-line error naming an option it does not know, instead of a stack trace.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** `parseArgs(config)` for the script at `scriptUrl` (its `import.meta.url`). */
export function benchArgs(scriptUrl, config) {
  const script = fileURLToPath(scriptUrl);
  let parsed;
  try {
    parsed = parseArgs({ ...config, options: { ...config.options, help: { type: 'boolean', short: 'h', default: false } } });
  } catch (err) {
    console.error(`${path.basename(script)}: ${err.message}\nSee \`node ${path.relative(process.cwd(), script)} --help\` for its options.`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(openingComment(script));
    process.exit(0);
  }
  return parsed;
}

/** The `//` lines a script opens with (after its `#!` line), without the slashes. */
export function openingComment(script) {
  const lines = readFileSync(script, 'utf8').split('\n');
  const comment = [];
  for (const line of lines.slice(lines[0]?.startsWith('#!') ? 1 : 0)) {
    if (!line.startsWith('//')) break;
    comment.push(line.replace(/^\/\/ ?/, ''));
  }
  return comment.join('\n');
}
