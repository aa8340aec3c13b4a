import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ActionSchemaNameSchema } from '../../browser-env/actions.js';
import type { DesktopObservation } from '../actions.js';
import type { DesktopEnv } from '../desktop-env.js';

type ToolResult = { content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[]; isError?: boolean };

/** An observation as MCP tool content: a JSON summary, the accessibility tree when taken, and the screenshot. */
function toContent(obs: DesktopObservation): ToolResult {
  const { screenshot, a11y_tree, ...rest } = obs;
  const content: ToolResult['content'] = [
    { type: 'text', text: JSON.stringify({ ...rest, screenshot: { mime: screenshot.mime, width: screenshot.width, height: screenshot.height } }) },
  ];
  if (a11y_tree) content.push({ type: 'text', text: a11y_tree });
  if (screenshot.data) content.push({ type: 'image', data: screenshot.data, mimeType: screenshot.mime });
  return obs.last_action_error ? { content, isError: true } : { content };
}

/** The desktop as MCP tools, named as the browser's (desktop_click, desktop_type, …, desktop_action); coordinates in screen pixels. */
export function buildMcpServer(env: DesktopEnv): McpServer {
  const server = new McpServer({ name: 'openforge-desktop', version: '0.1.0' });
  const step = async (action: unknown) => toContent(await env.step('canonical', [action], {}));
  server.registerTool(
    'desktop_observe',
    {
      description: 'The current screenshot, the windows and the focused one; with a11y_tree=true also the accessibility tree (AT-SPI, as XML).',
      inputSchema: { a11y_tree: z.boolean().optional() },
    },
    async ({ a11y_tree }) => toContent(await env.observation({ a11y_tree: a11y_tree ?? false })),
  );
  server.registerTool(
    'desktop_click',
    {
      description: 'Click at (x, y) in screen pixels.',
      inputSchema: { x: z.number(), y: z.number(), button: z.enum(['left', 'right', 'middle']).optional(), count: z.number().int().min(1).max(3).optional() },
    },
    async ({ x, y, button, count }) => step({ type: 'click', x, y, ...(button ? { button } : {}), ...(count ? { count } : {}) }),
  );
  server.registerTool(
    'desktop_type',
    { description: 'Type text (any Unicode) into the focused window.', inputSchema: { text: z.string() } },
    async ({ text }) => step({ type: 'type', text }),
  );
  server.registerTool(
    'desktop_key',
    {
      description: 'Press one key chord, e.g. ["Enter"] or ["Control", "s"] (Playwright key names or X keysyms).',
      inputSchema: { keys: z.array(z.string()).min(1) },
    },
    async ({ keys }) => step({ type: 'key', keys }),
  );
  server.registerTool(
    'desktop_scroll',
    {
      description: 'Scroll by (dx, dy) pixels (100 px per wheel notch), at (x, y) when given.',
      inputSchema: { dx: z.number().default(0), dy: z.number(), x: z.number().optional(), y: z.number().optional() },
    },
    async ({ dx, dy, x, y }) => step({ type: 'scroll', dx, dy, ...(x !== undefined && y !== undefined ? { x, y } : {}) }),
  );
  server.registerTool(
    'desktop_drag',
    {
      description: 'Press the left button at the first point, move through the others, release at the last.',
      inputSchema: { path: z.array(z.object({ x: z.number(), y: z.number() })).min(2) },
    },
    async ({ path }) => step({ type: 'drag', path }),
  );
  server.registerTool(
    'desktop_action',
    {
      description: 'Run one action in any supported vocabulary (schema: canonical, anthropic, openai, qwen25vl, qwen3vl, osworld, pyautogui).',
      inputSchema: { schema: ActionSchemaNameSchema.optional(), action: z.unknown() },
    },
    async ({ schema, action }) => toContent(await env.step(schema ?? 'canonical', [action], {})),
  );
  return server;
}

/** Stateless streamable HTTP: a server and transport per request, all driving the same desktop. */
export async function handleMcp(env: DesktopEnv, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = buildMcpServer(env);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
