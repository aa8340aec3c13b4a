import { z } from 'zod';
import { ResponsesToolNames, chatFunctionName } from './tool-names.js';
import { invalidResponsesRequest, parseField } from './validation.js';

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface TranslatedTools {
  tools: ChatFunctionTool[];
  names: ResponsesToolNames;
}

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
const namespaceToolSchema = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1),
  tools: z.array(z.looseObject({ type: z.string() })),
});
const customToolSchema = z.looseObject({
  type: z.literal('custom'),
  name: z.string().min(1),
  description: z.string().nullish(),
  format: z.looseObject({ type: z.string(), syntax: z.string().nullish(), definition: z.string().nullish() }).nullish(),
});

/**
 * Responses tools → Chat function tools. `function` tools map one to one, functions inside a
 * `namespace` are flattened, and `custom` (freeform) tools become a function with one string
 * parameter. Hosted and built-in tool types (`web_search`, `local_shell`, `file_search`,
 * `image_generation`, `code_interpreter`, `mcp`, …) have no Chat equivalent a local model could
 * call, so they are left out.
 */
export function translateTools(tools: readonly { type: string }[] | null | undefined): TranslatedTools {
  const names = new ResponsesToolNames();
  const chatTools: ChatFunctionTool[] = [];
  (tools ?? []).forEach((tool, i) => {
    const field = `tools[${i}]`;
    if (tool.type === 'function') {
      chatTools.push(functionTool(parseField(functionToolSchema, tool, field), undefined, names, field));
    } else if (tool.type === 'namespace') {
      const namespace = parseField(namespaceToolSchema, tool, field);
      namespace.tools.forEach((inner, j) => {
        if (inner.type !== 'function') return;
        const innerField = `${field}.tools[${j}]`;
        chatTools.push(functionTool(parseField(functionToolSchema, inner, innerField), namespace.name, names, innerField));
      });
    } else if (tool.type === 'custom') {
      chatTools.push(customTool(parseField(customToolSchema, tool, field), names, field));
    }
  });
  return { tools: chatTools, names };
}

function functionTool(tool: z.infer<typeof functionToolSchema>, namespace: string | undefined, names: ResponsesToolNames, field: string): ChatFunctionTool {
  const name = chatFunctionName(tool.name, namespace);
  names.add(name, namespace ? { kind: 'function', name: tool.name, namespace } : { kind: 'function', name: tool.name }, `${field}.name`);
  const fn: ChatFunctionTool['function'] = { name };
  if (tool.description != null) fn.description = tool.description;
  if (tool.parameters != null) fn.parameters = tool.parameters;
  if (tool.strict != null) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function customTool(tool: z.infer<typeof customToolSchema>, names: ResponsesToolNames, field: string): ChatFunctionTool {
  names.add(tool.name, { kind: 'custom', name: tool.name }, `${field}.name`);
  let description = tool.description ?? '';
  const format = tool.format;
  if (format?.type === 'grammar' && format.definition) {
    description += `${description ? '\n\n' : ''}The input must follow this ${format.syntax ?? ''} grammar:\n${format.definition}`;
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      description,
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The raw input for this freeform tool.' } },
        required: ['input'],
        additionalProperties: false,
      },
    },
  };
}

/** Responses `tool_choice` → Chat `tool_choice` (send it only with tools: Chat servers reject a choice without them). */
export function translateToolChoice(choice: unknown): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string') return choice;
  const { type, name, namespace, mode } = choice as { type: string; name?: unknown; namespace?: unknown; mode?: unknown };
  if ((type === 'function' || type === 'custom') && typeof name === 'string') {
    return { type: 'function', function: { name: chatFunctionName(name, typeof namespace === 'string' ? namespace : undefined) } };
  }
  // the subset restriction has no Chat equivalent; its mode still applies
  if (type === 'allowed_tools' && (mode === 'auto' || mode === 'required')) return mode;
  throw invalidResponsesRequest(
    'tool_choice',
    `a tool choice of type "${type}" names a tool the proxy does not forward (use auto, none, required, or a function)`,
  );
}
