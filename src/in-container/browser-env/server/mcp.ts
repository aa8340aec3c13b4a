import { z } from 'zod';
import { type McpTools, observationContent, registerPointerTools } from '../../env-server/mcp.js';
import type { Observation } from '../actions.js';
import type { BrowserEnv } from './browser-env.js';

const toContent = (obs: Observation) => observationContent(obs, 'aria_snapshot');

/** The browser as MCP tools (pixel actions in CSS px of the screenshot, element actions by ARIA ref). */
export function browserTools(env: BrowserEnv): McpTools {
  const step = async (action: unknown, aria = false) => toContent(await env.step('canonical', [action], { aria }));
  return {
    name: 'openforge-browser',
    register(server) {
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
      registerPointerTools(server, {
        prefix: 'browser',
        describe: {
          click: 'Click at (x, y) in CSS pixels of the screenshot.',
          type: 'Type text into the focused element.',
          key: 'Press one key chord, e.g. ["Enter"] or ["Control", "a"] (Playwright key names; ctrl/cmd/Return are accepted).',
          scroll: 'Scroll by (dx, dy) CSS pixels, at (x, y) when given.',
          action: 'Run one action in any supported vocabulary (schema: canonical, anthropic, openai, qwen25vl, qwen3vl, osworld, pyautogui, element).',
        },
        step: (action) => step(action),
        key: async (keys) => toContent(await env.step('openai', [{ type: 'keypress', keys }], {})),
        act: async (schema, action) => toContent(await env.step(schema, [action], {})),
      });
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
    },
  };
}
