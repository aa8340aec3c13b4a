#!/usr/bin/env node
// Writes the reference docs that are generated, never edited by hand: docs/run-yaml.md from the run config's
// zod schema (src/config/run.ts and the sections plugins lend it) and docs/cli.md from the commander program
// (src/cli). `--check` writes nothing and fails when a file is not what would be written (`npm test` runs it).
// Reads the build: `npm run build` first.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const root = path.resolve(import.meta.dirname, '../..');
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } });
if (values.help) {
  process.stdout.write(
    'usage: node scripts/docs/reference.mjs [--check]\n  writes docs/run-yaml.md and docs/cli.md; --check only compares them with what it would write\n',
  );
  process.exit(0);
}
const load = async (file) => {
  const full = path.join(root, 'dist', file);
  if (!existsSync(full)) throw new Error(`${full} is missing: run \`npm run build\` first`);
  return import(pathToFileURL(full).href);
};

const { RunConfigSchema } = await load('config/run.js');
const { harnessNames } = await load('harness/registry.js');
const { backendNames } = await load('sandbox/registry.js');
const { openforgeProgram } = await load('cli/program.js');

const GENERATED = (source) => `<!-- Generated from ${source} by \`npm run docs:reference\`: edit the source, not this file. -->\n`;

// ── run.yaml ────────────────────────────────────────────────────────────────────────────────────────────────

/** Names a registry knows, for keys whose schema is a plain string checked against it. */
const REGISTERED = { harness: () => harnessNames(), backend: () => backendNames() };

function typeOf(schema) {
  if (schema.enum) return `one of ${schema.enum.map((v) => `\`${v}\``).join(', ')}`;
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(', or ');
  const bound = (x) => (x !== undefined && Math.abs(x) < Number.MAX_SAFE_INTEGER ? x : undefined);
  const range = (low, high) => {
    const [lo, hi] = [bound(low), bound(high)];
    return lo !== undefined && hi !== undefined ? ` ${lo}–${hi}` : lo !== undefined ? ` ≥ ${lo}` : hi !== undefined ? ` ≤ ${hi}` : '';
  };
  switch (schema.type) {
    case 'string':
      return 'text';
    case 'integer':
      return `integer${range(schema.minimum, schema.maximum)}`;
    case 'number':
      return `number${range(schema.minimum ?? schema.exclusiveMinimum, schema.maximum)}`;
    case 'boolean':
      return 'true or false';
    case 'array':
      return `list of ${typeOf(schema.items ?? {})}`;
    case 'object':
      return schema.properties ? 'section' : `map of names to ${typeOf(schema.additionalProperties ?? {})}`;
    default:
      return 'any';
  }
}

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One row per key, nested sections' keys dotted after their section's row. */
function rows(schema, prefix = '') {
  const out = [];
  const required = new Set(schema.required ?? []);
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const name = `${prefix}${key}`;
    const registered = REGISTERED[name];
    const type = registered
      ? `one of ${registered()
          .map((v) => `\`${v}\``)
          .join(', ')}`
      : typeOf(prop);
    const dflt = prop.default !== undefined ? `\`${JSON.stringify(prop.default)}\`` : required.has(key) ? 'required' : '—';
    out.push(`| \`${name}\` | ${cell(type)} | ${cell(dflt)} | ${cell(prop.description ?? '')} |`);
    if (prop.type === 'object' && prop.properties) out.push(...rows(prop, `${name}.`));
  }
  return out;
}

function runYamlDoc() {
  const schema = z.toJSONSchema(RunConfigSchema, { io: 'input', unrepresentable: 'any' });
  return `${GENERATED('src/config/run.ts')}
# run.yaml reference

Every key \`openforge run\` reads from a run.yaml, with its type, default and meaning. Unknown keys are refused,
and every error names the file, the key and what is allowed. Relative paths are relative to the run.yaml.
A minimal file is \`tasks: .\`; the examples under \`envs/*/run.yaml\` show the rest in use.

| key | type | default | what it does |
|---|---|---|---|
${rows(schema).join('\n')}
`;
}

// ── cli ─────────────────────────────────────────────────────────────────────────────────────────────────────

function usageOf(command, parents) {
  return [...parents, command.name(), command.usage()].filter(Boolean).join(' ');
}

function commandDoc(command, parents, depth) {
  const heading = '#'.repeat(depth);
  const lines = [`${heading} \`${usageOf(command, parents)}\``, '', command.description()];
  const args = command.registeredArguments ?? [];
  if (args.length > 0) {
    lines.push('', '| argument | what it is |', '|---|---|');
    for (const a of args) lines.push(`| \`${a.name()}\`${a.required ? '' : ' (optional)'} | ${cell(a.description || '')} |`);
  }
  const options = command.options.filter((o) => !o.hidden);
  if (options.length > 0) {
    lines.push('', '| option | what it does |', '|---|---|');
    for (const o of options) {
      const extra = [
        o.argChoices ? `one of: ${o.argChoices.join(', ')}` : '',
        o.defaultValue !== undefined && o.defaultValue !== false ? `default: ${JSON.stringify(o.defaultValue)}` : '',
        o.mandatory ? 'required' : '',
      ]
        .filter(Boolean)
        .join('; ');
      lines.push(`| \`${o.flags}\` | ${cell(o.description)}${extra ? ` (${cell(extra)})` : ''} |`);
    }
  }
  lines.push('');
  for (const sub of command.commands) lines.push(commandDoc(sub, [...parents, command.name()], depth + 1));
  return lines.join('\n');
}

async function cliDoc() {
  const program = await openforgeProgram();
  const table = program.commands.map((c) => `| [\`${c.name()}\`](#${anchor(usageOf(c, ['openforge']))}) | ${cell(c.description())} |`);
  return `${GENERATED('src/cli/commands/*.ts')}
# Command-line reference

\`openforge <command> --help\` prints the same, for one command.

| command | what it does |
|---|---|
${table.join('\n')}

${program.commands.map((c) => commandDoc(c, ['openforge'], 2)).join('\n')}`.replace(/\n{3,}/g, '\n\n');
}

/** GitHub's anchor for a heading made of code: lower case, punctuation dropped, spaces as dashes. */
function anchor(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

// ── write or check ──────────────────────────────────────────────────────────────────────────────────────────

const docs = { 'docs/run-yaml.md': runYamlDoc(), 'docs/cli.md': await cliDoc() };
const stale = [];
for (const [file, text] of Object.entries(docs)) {
  const full = path.join(root, file);
  const current = existsSync(full) ? readFileSync(full, 'utf8') : undefined;
  if (current === text) continue;
  if (values.check) stale.push(file);
  else writeFileSync(full, text);
}
if (stale.length > 0) {
  process.stderr.write(
    `${stale.join(' and ')} ${stale.length > 1 ? 'are' : 'is'} not what the sources generate: run \`npm run docs:reference\` and commit the result\n`,
  );
  process.exit(1);
}
