#!/usr/bin/env node
// forge-gui-agent: OpenForge's reference GUI harness. A multimodal loop over OpenAI Chat Completions
// with one `computer` tool shaped like Anthropic's computer_20250124: it looks at the browser env
// server's screenshot, asks the model for an action, runs it through POST /step and shows the model
// the new screen.
//
// It is bundled into one file (scripts/build-agents.mjs) that is written alone into a browser container
// (/opt/openforge/forge-gui-agent.mjs) and runs on the Node of the read-only agent layer (/opt/openforge-node).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MODEL_ENV_USAGE, positiveNumber, readAgentOptions, runAgentCommand, runIfEntryPoint } from './kit/agent-cli.js';
import type { AgentResult, AgentRunOptions } from './kit/agent-run.js';
import { callModel, describeError, type AssistantMessage, type ModelReply, type RetryListener, type ToolCall } from './kit/chat-client.js';
import { toolArguments } from './kit/tool-arguments.js';
import { Transcript } from './kit/transcript.js';

export type { ToolCall } from './kit/chat-client.js';

export interface GuiAgentOptions extends AgentRunOptions {
  /** The browser env server (docs/browser.md). */
  envUrl?: string;
  /** The prompt holds N to 2N screenshots: past 2N, all but the newest N become a text note (prompts stay bounded). */
  keepScreenshots?: number;
  /** Where the final answer is written (graders of question-answering tasks may read it). */
  answerPath?: string;
}

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | AssistantMessage
  | { role: 'tool'; tool_call_id: string; content: string };

export interface Observation {
  screenshot: { data: string; mime: string; width: number; height: number };
  viewport: { width: number; height: number };
  url: string;
  title: string;
  tabs?: { index: number; url: string; title: string; active: boolean }[];
  last_action_error: null | { code: string; message: string };
  finished?: { status: 'done' | 'fail'; answer?: string; reason?: string };
}

/** The standard computer_20250124 actions, passed to the env server with `schema: "anthropic"`. */
const ANTHROPIC_ACTIONS = [
  'key',
  'hold_key',
  'type',
  'cursor_position',
  'mouse_move',
  'left_mouse_down',
  'left_mouse_up',
  'left_click',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'left_click_drag',
  'scroll',
  'wait',
  'screenshot',
];
/** Browser actions beyond computer_20250124 (no keyboard shortcut reaches the address bar of a driven browser). */
const BROWSER_ACTIONS = ['navigate', 'go_back', 'go_forward', 'new_tab', 'switch_tab', 'close_tab', 'done', 'fail'];

export const COMPUTER_TOOL = {
  type: 'function',
  function: {
    name: 'computer',
    description:
      'Use the mouse and keyboard on the browser screen you see. Coordinates are pixels of the latest screenshot, ' +
      '[x, y] from the top-left corner. Keys use xdotool names (e.g. "Return", "ctrl+a", "Page_Down"). ' +
      'scroll_amount counts wheel notches. navigate opens a URL; go_back / go_forward move in the history; ' +
      'new_tab (optional url), switch_tab and close_tab (tab index, 0-based) manage tabs; ' +
      'done ends the task with your answer in text; fail ends it as impossible to do, with the reason in text. ' +
      'Every action returns a new screenshot.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: [...ANTHROPIC_ACTIONS, ...BROWSER_ACTIONS], description: 'The action to perform.' },
        coordinate: {
          type: 'array',
          items: { type: 'integer' },
          minItems: 2,
          maxItems: 2,
          description: '[x, y]: where to click, move, scroll or end a drag.',
        },
        start_coordinate: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: '[x, y] where left_click_drag starts.' },
        text: {
          type: 'string',
          description:
            'Text to type, keys to press (key, hold_key), modifier keys held during a click, the answer of done or the reason of fail; ' +
            'for wait, text to wait for: the wait ends once it is shown, and fails if it is not within duration.',
        },
        scroll_direction: { type: 'string', enum: ['up', 'down', 'left', 'right'] },
        scroll_amount: { type: 'integer', minimum: 0, description: 'Wheel notches to scroll.' },
        duration: { type: 'number', minimum: 0, description: 'Seconds, for wait (at most, with text) and hold_key.' },
        url: { type: 'string', description: 'The URL to open (navigate, new_tab).' },
        index: { type: 'integer', minimum: 0, description: 'Tab index, 0-based (switch_tab, close_tab).' },
      },
      required: ['action'],
    },
  },
};

const SYSTEM_PROMPT = `You are a GUI agent operating {environment} through screenshots and the computer tool.
Each screenshot shows {screen} ({width}x{height} pixels). Act one step at a time: look at the latest screenshot, then call the computer tool.
When the task is complete, stop calling tools and reply with a short final answer (include any information the task asked for).`;

/** What the agent drives: the env server's observation says (a desktop lists its windows, a browser its tabs). */
export type GuiEnvironment = 'browser' | 'desktop';

const ENVIRONMENT_WORDS: Record<GuiEnvironment, { environment: string; screen: string }> = {
  browser: { environment: 'a web browser', screen: 'the whole browser viewport' },
  desktop: { environment: 'a Linux desktop (its applications, windows and panel)', screen: 'the whole screen' },
};

export function environmentOf(obs: Observation): GuiEnvironment {
  return Array.isArray((obs as { windows?: unknown }).windows) ? 'desktop' : 'browser';
}

export function systemPrompt(environment: GuiEnvironment, width: number, height: number): string {
  const words = ENVIRONMENT_WORDS[environment];
  return SYSTEM_PROMPT.replace('{environment}', words.environment)
    .replace('{screen}', words.screen)
    .replace('{width}', String(width))
    .replace('{height}', String(height));
}

/** The computer tool for the environment: on a desktop without the browser's page and tab actions. */
export function computerTool(environment: GuiEnvironment): typeof COMPUTER_TOOL {
  if (environment === 'browser') return COMPUTER_TOOL;
  const { url: _url, index: _index, ...properties } = COMPUTER_TOOL.function.parameters.properties;
  return {
    ...COMPUTER_TOOL,
    function: {
      ...COMPUTER_TOOL.function,
      description:
        'Use the mouse and keyboard on the desktop screen you see. Coordinates are pixels of the latest screenshot, ' +
        '[x, y] from the top-left corner. Keys use xdotool names (e.g. "Return", "ctrl+s", "alt+Tab"). ' +
        'scroll_amount counts wheel notches. done ends the task with your answer in text; fail ends it as impossible to do, ' +
        'with the reason in text. Every action returns a new screenshot.',
      parameters: {
        ...COMPUTER_TOOL.function.parameters,
        properties: {
          ...properties,
          action: { ...properties.action, enum: [...ANTHROPIC_ACTIONS, 'done', 'fail'] },
        } as typeof COMPUTER_TOOL.function.parameters.properties,
      },
    },
  };
}

const OMITTED_SCREENSHOT = '[an earlier screenshot, omitted to keep the context short]';

// ---------------------------------------------------------------------------
// The env server

export class EnvServerError extends Error {}

export class EnvServer {
  constructor(
    private readonly url: string,
    private readonly token = process.env.OPENFORGE_ENV_TOKEN,
  ) {}

  observe(): Promise<Observation> {
    return this.request('GET', '/observation');
  }

  step(body: Record<string, unknown>): Promise<Observation> {
    return this.request('POST', '/step', body);
  }

  private async request(method: string, route: string, body?: unknown): Promise<Observation> {
    let res: Response;
    try {
      res = await fetch(`${this.url.replace(/\/+$/, '')}${route}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new EnvServerError(`env server ${method} ${route}: ${describeError(err)}`);
    }
    const text = await res.text();
    if (!res.ok) throw new EnvServerError(`env server ${method} ${route}: HTTP ${res.status}: ${text.slice(0, 500)}`);
    try {
      return JSON.parse(text) as Observation;
    } catch {
      throw new EnvServerError(`env server ${method} ${route}: the answer is not JSON: ${text.slice(0, 200)}`);
    }
  }
}

/** The POST /step body for one computer-tool call. Browser actions go as canonical actions. */
export function stepRequest(args: Record<string, unknown>): Record<string, unknown> {
  switch (args.action) {
    case 'navigate':
      if (typeof args.url !== 'string' || args.url === '') throw new Error('navigate needs a "url"');
      return { schema: 'canonical', action: { type: 'goto', url: args.url } };
    case 'go_back':
    case 'go_forward':
      return { schema: 'canonical', action: { type: args.action } };
    case 'new_tab':
      return { schema: 'canonical', action: { type: 'new_tab', ...(typeof args.url === 'string' && args.url ? { url: args.url } : {}) } };
    case 'switch_tab':
    case 'close_tab':
      if (args.action === 'switch_tab' && typeof args.index !== 'number') throw new Error('switch_tab needs an "index"');
      return { schema: 'canonical', action: { type: args.action, ...(typeof args.index === 'number' ? { index: args.index } : {}) } };
    case 'type':
      // Sent as the equivalent canonical action: the env server's Anthropic translator (as of gui-env
      // b65b8f8) reads any `text` as key names, so typing "hello world" would fail there.
      if (typeof args.text !== 'string') throw new Error('type needs a "text"');
      return { schema: 'canonical', action: { type: 'type', text: args.text } };
    default:
      return { schema: 'anthropic', action: args };
  }
}

// ---------------------------------------------------------------------------
// Context

function screenshotPart(obs: Observation): ContentPart {
  return { type: 'image_url', image_url: { url: `data:${obs.screenshot.mime};base64,${obs.screenshot.data}` } };
}

function describePage(obs: Observation): string {
  const windows = (obs as { windows?: { title: string; active: boolean }[] }).windows;
  if (Array.isArray(windows)) {
    const others = windows.filter((w) => !w.active && w.title).map((w) => w.title);
    return `Focused window: ${obs.title || '(none)'}${others.length ? `\nOther windows: ${others.join('; ')}` : ''}`;
  }
  const page = `Page: ${obs.title || '(untitled)'} — ${obs.url}`;
  const tabs = obs.tabs ?? [];
  if (tabs.length < 2) return page;
  return `${page}\nTabs: ${tabs.map((t) => `[${t.index}${t.active ? ', active' : ''}] ${t.title || t.url}`).join('; ')}`;
}

/**
 * Keeps between `keep` and 2 × `keep` screenshots in the prompt: once there are more than 2 × `keep`, every
 * image but the newest `keep` becomes a text note, all at once. Dropping in batches rather than one per turn
 * leaves the prompt prefix unchanged for `keep` turns at a time, so the recorded calls still merge into
 * training samples between drops (each drop edits the history and starts a new sample).
 */
export function dropOldScreenshots(messages: Message[], keep: number): void {
  const images = messages.reduce(
    (n, m) => n + (m.role === 'user' && typeof m.content !== 'string' ? m.content.filter((p) => p.type === 'image_url').length : 0),
    0,
  );
  if (images <= 2 * keep) return;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    m.content = m.content.map((part) => {
      if (part.type !== 'image_url') return part;
      seen++;
      return seen > keep ? { type: 'text', text: OMITTED_SCREENSHOT } : part;
    });
  }
}

/** Messages as logged: images by size only. */
function loggable(messages: Message[]): unknown[] {
  return messages.map((m) =>
    m.role === 'user' && typeof m.content !== 'string'
      ? { ...m, content: m.content.map((p) => (p.type === 'image_url' ? { type: 'image_url', bytes: p.image_url.url.length } : p)) }
      : m,
  );
}

// ---------------------------------------------------------------------------
// Loop

export async function runGuiAgent(options: GuiAgentOptions): Promise<AgentResult> {
  const maxTurns = options.maxTurns ?? 30;
  const keep = Math.max(1, options.keepScreenshots ?? 3);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const env = new EnvServer(options.envUrl ?? 'http://127.0.0.1:7000');
  const transcript = new Transcript(options.transcriptPath);

  const finish = (result: AgentResult): AgentResult => {
    if (result.finalText !== null && options.answerPath) {
      mkdirSync(path.dirname(options.answerPath), { recursive: true });
      writeFileSync(options.answerPath, result.finalText);
    }
    transcript.event(result.exitCode === 0 ? 'final' : 'error', { turn: result.turns, text: result.finalText, error: result.error });
    if (result.error) log(`[forge-gui-agent] ${result.error}`);
    return result;
  };

  const onRetry =
    (turn: number): RetryListener =>
    ({ attempt, of, delayMs, error }) =>
      log(`[forge-gui-agent] turn ${turn}: ${error.message.slice(0, 200)}; retry ${attempt}/${of} in ${delayMs}ms`);

  try {
    let obs: Observation;
    try {
      obs = await env.observe();
    } catch (err) {
      return finish({ exitCode: 1, turns: 0, finalText: null, error: (err as Error).message });
    }
    const environment = environmentOf(obs);
    const tool = computerTool(environment);
    const messages: Message[] = [
      { role: 'system', content: systemPrompt(environment, obs.screenshot.width, obs.screenshot.height) },
      { role: 'user', content: [{ type: 'text', text: options.instruction }, { type: 'text', text: describePage(obs) }, screenshotPart(obs)] },
    ];
    transcript.event('start', { model: options.model ?? 'policy', max_turns: maxTurns, keep_screenshots: keep, messages: loggable(messages) });

    for (let turn = 1; turn <= maxTurns; turn++) {
      const started = Date.now();
      dropOldScreenshots(messages, keep);
      let reply: ModelReply;
      try {
        reply = await callModel(options, { messages, tools: [tool] }, onRetry(turn));
      } catch (err) {
        return finish({ exitCode: 1, turns: turn, finalText: null, error: (err as Error).message });
      }
      const { message } = reply;
      const toolCalls = message.tool_calls ?? [];
      messages.push(message);
      transcript.event('model_response', { turn, content: message.content, tool_calls: toolCalls, finish_reason: reply.finishReason, usage: reply.usage });
      if (toolCalls.length === 0) {
        const finalText = message.content ?? '';
        await env.step({ schema: 'canonical', action: { type: 'done', answer: finalText } }).catch(() => undefined);
        log(`[forge-gui-agent] turn ${turn}/${maxTurns}: final answer (${finalText.length} chars)`);
        return finish({ exitCode: 0, turns: turn, finalText });
      }

      let doneAnswer: string | undefined;
      for (const call of toolCalls) {
        const { result, observation, answer } = await runToolCall(env, call);
        if (observation) obs = observation;
        if (answer !== undefined) doneAnswer = answer;
        transcript.event('tool_result', { turn, id: call.id, name: call.function.name, arguments: call.function.arguments, content: result });
        messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
      if (doneAnswer !== undefined) {
        log(`[forge-gui-agent] turn ${turn}/${maxTurns}: done`);
        return finish({ exitCode: 0, turns: turn, finalText: doneAnswer });
      }
      // Chat tool messages carry text only: the new screen follows as a user message.
      messages.push({ role: 'user', content: [{ type: 'text', text: `Screenshot after your action. ${describePage(obs)}` }, screenshotPart(obs)] });
      log(
        `[forge-gui-agent] turn ${turn}/${maxTurns}: ${toolCalls
          .map((c) => c.function.arguments)
          .join(', ')
          .slice(0, 200)} (${Date.now() - started}ms)`,
      );
    }
    return finish({ exitCode: 2, turns: maxTurns, finalText: null, error: `max turns (${maxTurns}) reached without a final answer` });
  } finally {
    transcript.close();
  }
}

/** Runs one tool call against the env server; every failure becomes a text result for the model. */
async function runToolCall(env: EnvServer, call: ToolCall): Promise<{ result: string; observation?: Observation; answer?: string }> {
  if (call.function.name !== COMPUTER_TOOL.function.name) return { result: `Error: unknown tool "${call.function.name}"; the only tool is "computer".` };
  const parsed = toolArguments(call);
  if ('error' in parsed) return { result: parsed.error };
  const { args } = parsed;
  if (args.action === 'done') {
    const answer = typeof args.text === 'string' ? args.text : '';
    const observation = await env.step({ schema: 'canonical', action: { type: 'done', answer } }).catch(() => undefined);
    return { result: 'Done.', observation, answer };
  }
  if (args.action === 'fail') {
    // OSWorld's FAIL: the env server records the episode as ended undone, which graders of infeasible tasks read
    const reason = typeof args.text === 'string' && args.text ? args.text : undefined;
    const observation = await env.step({ schema: 'canonical', action: { type: 'fail', ...(reason ? { reason } : {}) } }).catch(() => undefined);
    return { result: 'Ended as impossible to do.', observation, answer: `I cannot complete the task${reason ? `: ${reason}` : '.'}` };
  }
  let observation: Observation;
  try {
    observation = await env.step(stepRequest(args));
  } catch (err) {
    return { result: `Error: ${(err as Error).message}` };
  }
  const error = observation.last_action_error;
  const result = error ? `Error (${error.code}): ${error.message}` : `OK: ${String(args.action)}. ${describePage(observation)}`;
  return { result, observation };
}

// ---------------------------------------------------------------------------
// CLI

const USAGE = `usage: node forge-gui-agent.mjs --instruction-file FILE [--max-turns 30] [--keep-screenshots 3]
                     [--env-url http://127.0.0.1:7000] [--transcript /logs/agent/transcript.jsonl] [--answer-file /logs/agent/answer.txt]
${MODEL_ENV_USAGE}`;

export function main(argv = process.argv.slice(2), env = process.env): Promise<number> {
  const own = { 'keep-screenshots': { type: 'string' }, 'env-url': { type: 'string' }, 'answer-file': { type: 'string' } } as const;
  const readOptions = (): GuiAgentOptions | undefined =>
    readAgentOptions(argv, env, own, (flags) => ({
      keepScreenshots: positiveNumber(flags['keep-screenshots'], 'keep-screenshots', 3, true),
      envUrl: flags['env-url'] ?? 'http://127.0.0.1:7000',
      answerPath: flags['answer-file'] ?? '/logs/agent/answer.txt',
    }));
  return runAgentCommand('forge-gui-agent', USAGE, readOptions, runGuiAgent);
}

runIfEntryPoint(import.meta.url, 'forge-gui-agent', () => main());
