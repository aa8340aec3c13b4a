import { invalidResponsesRequest } from './validation.js';

/** What a Chat function name stands for on the Responses side. */
export type ResponsesToolRef = { kind: 'function'; name: string; namespace?: string } | { kind: 'custom'; name: string };

/**
 * The Chat name of a Responses function. Functions inside a `namespace` tool (Codex declares its
 * sub-agent tools that way) are flattened to `<namespace>__<name>`, as Codex's own Chat adapter does.
 */
export function chatFunctionName(name: string, namespace?: string | null): string {
  return namespace ? `${namespace}__${name}` : name;
}

/**
 * A custom (freeform) tool reaches the upstream as a function with one string parameter,
 * `input`; the model's call is turned back into the raw input.
 */
export function customToolArguments(input: string): string {
  return JSON.stringify({ input });
}

/** The raw input a model's Chat arguments for a custom tool stand for; arguments that are not `{"input": "…"}` are kept as they are. */
export function customToolInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { input?: unknown }).input === 'string') {
      return (parsed as { input: string }).input;
    }
  } catch {
    // not JSON: the model wrote the input bare
  }
  return args;
}

/** The declared tools by their Chat names, to turn the model's calls back into Responses items. */
export class ResponsesToolNames {
  private readonly byChatName = new Map<string, ResponsesToolRef>();

  add(chatName: string, ref: ResponsesToolRef, field: string): void {
    if (this.byChatName.has(chatName)) {
      throw invalidResponsesRequest(field, `tool name "${chatName}" is declared twice (namespaced functions become <namespace>__<name>)`);
    }
    this.byChatName.set(chatName, ref);
  }

  /** A name the request did not declare is taken as a plain function, as the model wrote it. */
  resolve(chatName: string): ResponsesToolRef {
    return this.byChatName.get(chatName) ?? { kind: 'function', name: chatName };
  }
}
