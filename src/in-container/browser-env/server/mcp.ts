import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ActionSchemaNameSchema, type Observation } from '../actions.js';
import type { BrowserEnv } from './browser-env.js';

type ToolResult = { content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[]; isError?: boolean };

/** An observation as MCP tool content: a JSON summary, the ARIA snapshot when taken, and the screenshot. */
function toContent(obs: Observation): ToolResult {
  const { screenshot, aria_snapshot, ...rest } = obs;
  const content: ToolResult['content'] = [
    { type: 'text', text: JSON.stringify({ ...rest, screenshot: { mime: screenshot.mime, width: screenshot.width, height: screenshot.height } }) },
  ];
  if (aria_snapshot) content.push({ type: 'text', text: aria_snapshot });
  if (screenshot.data) content.push({ type: 'image', data: screenshot.data, mimeType: screenshot.mime });
  return obs.last_action_error ? { content, isError: true } : { content };
}

/** The browser as MCP tools (pixel actions in CSS px of the screenshot, element actions by ARIA ref). */
export function buildMcpServer(env: BrowserEnv): McpServer {
  const server = new McpServer({ name: 'openforge-browser', version: '0.1.0' });
  const step = async (action: unknown, aria = false) => toContent(await env.step('canonical', [action], { aria }));
  server.registerTool(
    'browser_reset',
    {
      description: 'Start a fresh episode (new browser context), optionally at a URL and viewport size.',
      inputSchema: { start_url: z.string().optional(), width: z.number().int().optional(), height: z.number().int().optional() },
    },
    async ({ start_url, width, height }) => toContent(await env.reset({ start_url, ...(width && height ? { viewport: { width, height } } : {}) })),
  );
  server.registerTool(
    'browser_observe',
    {
      description: 'The current screenshot, URL, title and tabs; with aria=true also the ARIA snapshot whose [ref=…] values the *_ref tools take.',
      inputSchema: { aria: z.boolean().optional() },
    },
    async ({ aria }) => toContent(await env.observation({ aria: aria ?? false })),
  );
  server.registerTool(
    'browser_click',
    {
      description: 'Click at (x, y) in CSS pixels of the screenshot.',
      inputSchema: { x: z.number(), y: z.number(), button: z.enum(['left', 'right', 'middle']).optional(), count: z.number().int().min(1).max(3).optional() },
    },
    async ({ x, y, button, count }) => step({ type: 'click', x, y, ...(button ? { button } : {}), ...(count ? { count } : {}) }),
  );
  server.registerTool('browser_type', { description: 'Type text into the focused element.', inputSchema: { text: z.string() } }, async ({ text }) =>
    step({ type: 'type', text }),
  );
  server.registerTool(
    'browser_key',
    {
      description: 'Press one key chord, e.g. ["Enter"] or ["Control", "a"] (Playwright key names; ctrl/cmd/Return are accepted).',
      inputSchema: { keys: z.array(z.string()).min(1) },
    },
    async ({ keys }) => toContent(await env.step('openai', [{ type: 'keypress', keys }], {})),
  );
  server.registerTool(
    'browser_scroll',
    {
      description: 'Scroll by (dx, dy) CSS pixels, at (x, y) when given.',
      inputSchema: { dx: z.number().default(0), dy: z.number(), x: z.number().optional(), y: z.number().optional() },
    },
    async ({ dx, dy, x, y }) => step({ type: 'scroll', dx, dy, ...(x !== undefined && y !== undefined ? { x, y } : {}) }),
  );
  server.registerTool('browser_navigate', { description: 'Open a URL in the current tab.', inputSchema: { url: z.string() } }, async ({ url }) =>
    step({ type: 'goto', url }),
  );
  server.registerTool(
    'browser_click_ref',
    { description: 'Click the element with this ref from the latest ARIA snapshot.', inputSchema: { ref: z.string() } },
    async ({ ref }) => step({ type: 'click_ref', ref }, true),
  );
  server.registerTool(
    'browser_fill_ref',
    { description: 'Fill the input with this ref (from the latest ARIA snapshot) with text.', inputSchema: { ref: z.string(), text: z.string() } },
    async ({ ref, text }) => step({ type: 'fill_ref', ref, text }, true),
  );
  server.registerTool(
    'browser_action',
    {
      description: 'Run one action in any supported vocabulary (schema: canonical, anthropic, openai, qwen25vl, qwen3vl, osworld, pyautogui, element).',
      inputSchema: { schema: ActionSchemaNameSchema.optional(), action: z.unknown() },
    },
    async ({ schema, action }) => toContent(await env.step(schema ?? 'canonical', [action], {})),
  );
  return server;
}

/** Stateless streamable HTTP: a server and transport per request, all driving the same browser. */
export async function handleMcp(env: BrowserEnv, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = buildMcpServer(env);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
