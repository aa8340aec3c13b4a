import type { ToolDefinition } from '../chat-request.js';

/** A harness's tool that runs a shell command, and how to pass it one. */
export interface ShellTool {
  name: string;
  commandProperty: string;
  /** `argv` tools take `command: string[]`; they get `["bash", "-lc", script]`. */
  commandForm: 'string' | 'argv';
  properties: Record<string, JsonSchema>;
  required: string[];
}

type JsonSchema = Record<string, unknown>;

const SHELL_TOOL_NAMES = new Set([
  'bash',
  'shell',
  'exec',
  'exec_command',
  'run_shell_command',
  'shell_command',
  'local_shell',
  'terminal',
  'run_command',
  'run_terminal_cmd',
  'execute',
  'execute_command',
  'execute_bash',
]);
const SHELL_NAME_HINT = /bash|shell|exec|terminal|command|cmd|run/i;
const COMMAND_PROPERTIES = ['command', 'cmd', 'script'];

/**
 * Finds the shell tool among the request's function tools. Any tool with a command-like
 * parameter qualifies; among them a known shell tool name wins, then a name that hints at a
 * shell, then declaration order. A known name with a single string parameter also qualifies.
 */
export function findShellTool(tools: readonly ToolDefinition[] | null | undefined): ShellTool | undefined {
  let best: { tool: ShellTool; rank: number } | undefined;
  for (const definition of tools ?? []) {
    const fn = definition.function;
    if (definition.type !== 'function' || !fn) continue;
    const knownName = SHELL_TOOL_NAMES.has(fn.name.toLowerCase());
    const tool = describeCommandParameter(fn.name, fn.parameters ?? {}, knownName);
    if (!tool) continue;
    const rank = knownName ? 2 : SHELL_NAME_HINT.test(fn.name) ? 1 : 0;
    if (!best || rank > best.rank) best = { tool, rank };
  }
  return best?.tool;
}

function describeCommandParameter(name: string, parameters: JsonSchema, knownName: boolean): ShellTool | undefined {
  const properties = isRecord(parameters.properties) ? (parameters.properties as Record<string, JsonSchema>) : {};
  const required = Array.isArray(parameters.required) ? parameters.required.filter((r): r is string => typeof r === 'string') : [];
  const base = { name, properties, required };
  for (const property of COMMAND_PROPERTIES) {
    const schema = properties[property];
    if (!isRecord(schema)) continue;
    if (hasType(schema, 'string')) return { ...base, commandProperty: property, commandForm: 'string' };
    if (hasType(schema, 'array') && isRecord(schema.items) && hasType(schema.items, 'string')) {
      return { ...base, commandProperty: property, commandForm: 'argv' };
    }
  }
  if (knownName) {
    const strings = Object.entries(properties).filter(([, schema]) => isRecord(schema) && hasType(schema, 'string'));
    if (strings.length === 1) return { ...base, commandProperty: (strings[0] as [string, JsonSchema])[0], commandForm: 'string' };
  }
  return undefined;
}

/** The tool call's JSON arguments: the script, plus a sensible value for every other required parameter. */
export function shellToolArguments(tool: ShellTool, script: string, description: string): string {
  const args: Record<string, unknown> = {
    [tool.commandProperty]: tool.commandForm === 'argv' ? ['bash', '-lc', script] : script,
  };
  for (const property of tool.required) {
    if (property in args) continue;
    args[property] = fillValue(property, tool.properties[property] ?? {}, description);
  }
  return JSON.stringify(args);
}

function fillValue(name: string, schema: JsonSchema, description: string): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (hasType(schema, 'string')) {
    if (/dir|cwd|workdir|folder|path/i.test(name)) return '/workspace';
    if (/^shell$/i.test(name)) return 'bash';
    return description;
  }
  if (hasType(schema, 'integer') || hasType(schema, 'number')) {
    let value: number;
    if (/timeout|yield|wait/i.test(name)) value = durationValue(name, typeof schema.description === 'string' ? schema.description : '');
    else if (/max|limit/i.test(name)) value = 10000;
    else value = typeof schema.minimum === 'number' ? schema.minimum : 0;
    return typeof schema.maximum === 'number' ? Math.min(value, schema.maximum) : value;
  }
  if (hasType(schema, 'boolean')) return false;
  if (hasType(schema, 'array')) return [];
  if (hasType(schema, 'object')) return {};
  return description;
}

/** 120 s, in the unit the parameter's name or description implies (milliseconds unless it says seconds). */
function durationValue(name: string, description: string): number {
  if (/(ms|Ms|_ms)$/.test(name) || /millisecond/i.test(description)) return 120000;
  if (/(sec|secs|seconds|_s)$/i.test(name) || /\bseconds?\b/i.test(description)) return 120;
  return 120000;
}

function hasType(schema: JsonSchema, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
