import { z } from 'zod';
import { type McpTools, observationContent, registerPointerTools } from '../../env-server/mcp.js';
import type { DesktopObservation } from '../actions.js';
import type { DesktopEnv } from '../desktop-env.js';

const toContent = (obs: DesktopObservation) => observationContent(obs, 'a11y_tree');

/** The desktop as MCP tools, named as the browser's (desktop_click, desktop_type, …, desktop_action); coordinates in screen pixels. */
export function desktopTools(env: DesktopEnv): McpTools {
  const step = async (action: unknown) => toContent(await env.step('canonical', [action], {}));
  return {
    name: 'openforge-desktop',
    register(server) {
      server.registerTool(
        'desktop_observe',
        {
          description:
            'The current screenshot, the windows and the focused one; with a11y_tree=true also the accessibility tree (AT-SPI, as XML); ' +
            'with set_of_marks=true the elements you can act on are boxed and numbered on the screenshot and listed as marks (id, role, name, box).',
          inputSchema: { a11y_tree: z.boolean().optional(), set_of_marks: z.boolean().optional() },
        },
        async ({ a11y_tree, set_of_marks }) => toContent(await env.observation({ a11y_tree: a11y_tree ?? false, set_of_marks: set_of_marks ?? false })),
      );
      registerPointerTools(server, {
        prefix: 'desktop',
        describe: {
          click: 'Click at (x, y) in screen pixels.',
          type: 'Type text (any Unicode) into the focused window.',
          key: 'Press one key chord, e.g. ["Enter"] or ["Control", "s"] (Playwright key names or X keysyms).',
          scroll: 'Scroll by (dx, dy) pixels (100 px per wheel notch), at (x, y) when given.',
          action: 'Run one action in any supported vocabulary (schema: canonical, anthropic, openai, qwen25vl, qwen3vl, osworld, pyautogui).',
        },
        step,
        key: (keys) => step({ type: 'key', keys }),
        act: async (schema, action) => toContent(await env.step(schema, [action], {})),
      });
      server.registerTool(
        'desktop_drag',
        {
          description: 'Press the left button at the first point, move through the others, release at the last.',
          inputSchema: { path: z.array(z.object({ x: z.number(), y: z.number() })).min(2) },
        },
        async ({ path }) => step({ type: 'drag', path }),
      );
    },
  };
}
