import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { type ActionSchemaName, ActionSchemaNameSchema } from '../browser-env/actions.js';

export type ToolResult = { content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[] };

/** An environment's MCP tools: the server's name and what registers its tools on a fresh server. */
export interface McpTools {
  name: string;
  register(server: McpServer): void;
}

/** What every env's observation has that MCP content is made of. */
export interface ObservationLike {
  screenshot: { data: string; mime: string; width: number; height: number };
  last_action_error: unknown;
}

/**
 * An observation as MCP tool content: a JSON summary, the text field `textKey` (the ARIA snapshot, the
 * accessibility tree) as a part of its own when present, and the screenshot as MCP image content.
 *
 * A failed action is said in a text part of its own (`Error: <code>: <message>`) and in the summary's
 * last_action_error, not by MCP `isError`: the episode goes on, and the model must see the screen as it is
 * now. Claude Code turns an `isError` result into its text alone, so the screenshot would be lost.
 */
export function observationContent<O extends ObservationLike>(obs: O, textKey?: keyof O & string): ToolResult {
  const { screenshot, ...rest } = obs as ObservationLike & Record<string, unknown>;
  const text = textKey ? rest[textKey] : undefined;
  if (textKey) delete rest[textKey];
  const content: ToolResult['content'] = [
    { type: 'text', text: JSON.stringify({ ...rest, screenshot: { mime: screenshot.mime, width: screenshot.width, height: screenshot.height } }) },
  ];
  if (obs.last_action_error) content.push({ type: 'text', text: errorLine(obs.last_action_error) });
  if (typeof text === 'string' && text) content.push({ type: 'text', text });
  if (screenshot.data) content.push({ type: 'image', data: screenshot.data, mimeType: screenshot.mime });
  return { content };
}

function errorLine(error: unknown): string {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  const what = [code, message].filter((part) => typeof part === 'string' && part).join(': ') || JSON.stringify(error);
  return `Error: the action failed (${what}); the screenshot shows the screen as it is now.`;
}

/** The tools every GUI env has, named `<prefix>_click`, `_type`, `_key`, `_scroll` and `_action`. */
export interface PointerTools {
  prefix: string;
  /** Each tool's description (they name the env's own units and key names). */
  describe: { click: string; type: string; key: string; scroll: string; action: string };
  /** Runs one canonical action. */
  step(action: unknown): Promise<ToolResult>;
  /** Presses one chord (the env translates key names its own way). */
  key(keys: string[]): Promise<ToolResult>;
  /** Runs one action in a named vocabulary. */
  act(schema: ActionSchemaName, action: unknown): Promise<ToolResult>;
}

export function registerPointerTools(server: McpServer, tools: PointerTools): void {
  const { prefix, describe, step } = tools;
  server.registerTool(
    `${prefix}_click`,
    {
      description: describe.click,
      inputSchema: { x: z.number(), y: z.number(), button: z.enum(['left', 'right', 'middle']).optional(), count: z.number().int().min(1).max(3).optional() },
    },
    async ({ x, y, button, count }) => step({ type: 'click', x, y, ...(button ? { button } : {}), ...(count ? { count } : {}) }),
  );
  server.registerTool(`${prefix}_type`, { description: describe.type, inputSchema: { text: z.string() } }, async ({ text }) => step({ type: 'type', text }));
  server.registerTool(`${prefix}_key`, { description: describe.key, inputSchema: { keys: z.array(z.string()).min(1) } }, async ({ keys }) => tools.key(keys));
  server.registerTool(
    `${prefix}_scroll`,
    {
      description: describe.scroll,
      inputSchema: { dx: z.number().default(0), dy: z.number(), x: z.number().optional(), y: z.number().optional() },
    },
    async ({ dx, dy, x, y }) => step({ type: 'scroll', dx, dy, ...(x !== undefined && y !== undefined ? { x, y } : {}) }),
  );
  server.registerTool(
    `${prefix}_action`,
    { description: describe.action, inputSchema: { schema: ActionSchemaNameSchema.optional(), action: z.unknown() } },
    async ({ schema, action }) => tools.act(schema ?? 'canonical', action),
  );
}

/** Stateless streamable HTTP: a server and transport per request, all driving the same environment. */
export async function handleMcp(tools: McpTools, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = new McpServer({ name: tools.name, version: '0.1.0' });
  tools.register(server);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
