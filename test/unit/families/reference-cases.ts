/**
 * Reference-check conversations: random multi-turn OpenAI requests (tool use, parallel calls, reasoning sent
 * back or not, unicode, empty and null content, a system prompt or none, tools or none), written as Python's
 * json.dumps writes them so that integral floats (1.0) survive: Python reads a case with json.loads, the
 * families with parseJsonLossless, and both see the same values.
 */
import { type JsonValue, PyFloat, PyInt } from '../../../src/families/json/json-value.js';
import { pyJsonDumps } from '../../../src/families/json/py-json.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

export type FamilyName = 'qwen3' | 'deepseek_v3';

export interface Case {
  id: string;
  family: FamilyName;
  messages: JsonValue[];
  tools: JsonValue[] | null;
  add_generation_prompt: boolean;
  /** chat_template_kwargs */
  kwargs: { [k: string]: JsonValue };
  accept_reasoning_content_key: boolean;
}

const TEXTS = [
  'Hello!',
  'What is the weather in Paris?',
  '你好，世界！请帮我查一下北京的天气。',
  '東京の天気は？',
  'Emoji test 🌍🎉👩‍💻 and flags 🇫🇷',
  '',
  ' leading and trailing spaces ',
  '\nnewlines\n\nin the middle\n',
  'Quotes "double" and \'single\' and back\\slash',
  'Tabs\tand\r\ncarriage returns',
  'Ünïcödé àccents — dash … ellipsis',
  'Code: ```python\nprint("hi")\n```',
  'Math: 1 < 2 > 0 && a || b',
  'Arabic مرحبا and Hebrew שלום',
  'Zero-width\u200bspace\u00a0nbsp',
  'Korean 안녕하세요 and Thai สวัสดี',
  'JSON-ish {"a": 1, "b": [1, 2]}',
  'A long line ' + 'lorem ipsum dolor sit amet '.repeat(12),
  '<tool_response>\nlooks like a tool response\n</tool_response>',
  'Mentions </think> inside text',
  'surrogate pair 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠜎',
];

const REASONINGS = [
  'The user wants the weather. I should call the tool.',
  '用户想知道天气，我需要调用工具。',
  '\nLeading newline reasoning\n',
  'Step 1: think.\nStep 2: act.',
  '',
  'Let me compute 2+2 = 4 🤔',
  '  spaced reasoning \t',
  '\n\n',
  '\ufeff BOM reasoning',
];

const TOOL_RESULTS = [
  '{"temperature": 21.5, "unit": "C"}',
  'Sunny, 25°C',
  '',
  '{"results": []}',
  '错误：未找到城市',
  'line1\nline2\n',
  '{"ok":true,"n":1.0}',
  'ERROR: timeout',
  '[{"id": 1}, {"id": 2}]',
];

type ToolDef = { name: string; description: string | null; parameters: JsonValue };

const TOOLS: ToolDef[] = [
  {
    name: 'get_weather',
    description: 'Get the current weather for a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. 北京' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Unit', default: 'celsius' },
      },
      required: ['city'],
    },
  },
  {
    name: 'search',
    description: 'Search the web',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        top_k: { type: 'integer', description: 'How many results', default: 10, minimum: 1, maximum: 100 },
        temperature: { type: 'number', default: new PyFloat(1), description: 'Float with integral default' },
        filters: { type: 'array', items: { type: 'string' } },
      },
      required: ['query'],
    },
  },
  {
    name: 'run_code',
    description: 'Execute code in a sandbox',
    parameters: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Source code' },
        timeout: { type: 'number', nullable: true },
        env: { type: 'object', properties: { PATH: { type: 'string' } } },
        flags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
      },
      required: ['code'],
    },
  },
  { name: 'no_params', description: 'A tool with no parameters', parameters: { type: 'object', properties: {} } },
  {
    name: 'lookup_id',
    description: 'Lookup by id (integer-like keys in schema)',
    parameters: {
      type: 'object',
      properties: {
        id: { type: ['string', 'integer'], description: 'id' },
        mode: { oneOf: [{ type: 'string', description: 'by name' }, { type: 'integer' }] },
        big: { type: 'integer', default: new PyInt('12345678901234567890') },
        ratio: { type: 'number', default: 0.5 },
        enabled: { type: 'boolean', default: false },
      },
      required: ['id'],
    },
  },
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  const x = xs[Math.floor(r() * xs.length)];
  if (x === undefined) throw new Error('empty');
  return x;
}

/** Argument JSON strings with the variety harnesses send: spacing, key order, unicode, numbers. */
function argumentsFor(r: () => number, tool: ToolDef): string {
  const styles = [
    (o: JsonValue) => pyJsonDumps(o, { ensureAscii: false }),
    (o: JsonValue) => pyJsonDumps(o, { ensureAscii: false, separators: [',', ':'] }),
    (o: JsonValue) => pyJsonDumps(o, { ensureAscii: true }),
    (o: JsonValue) => pyJsonDumps(o, { ensureAscii: false, indent: 2 }),
  ];
  let obj: JsonValue;
  switch (tool.name) {
    case 'get_weather':
      obj = r() < 0.5 ? { city: pick(r, ['Paris', '北京', 'São Paulo', 'Zürich']) } : { unit: 'celsius', city: pick(r, ['東京', 'New York']) };
      break;
    case 'search':
      obj = {
        query: pick(r, TEXTS.slice(0, 6)),
        top_k: pick(r, [3, 10]),
        temperature: pick<JsonValue>(r, [new PyFloat(1), 0.7, new PyFloat(0), 1e-7, 12345678.9]),
      };
      break;
    case 'run_code':
      obj = { code: 'print("héllo")\nfor i in range(3):\n\tprint(i)', timeout: null, env: { PATH: '/usr/bin' }, flags: [{ k: 'v' }] };
      break;
    case 'lookup_id':
      obj =
        r() < 0.5
          ? new Map<string, JsonValue>([
              ['id', 'x'],
              ['10', 'ten'],
              ['2', true],
            ])
          : { id: new PyInt('98765432109876543210') };
      break;
    default:
      obj = {};
  }
  if (tool.name === 'no_params' && r() < 0.3) return '';
  return pick(r, styles)(obj);
}

function toolSpec(r: () => number, t: ToolDef, allowMissingDescription: boolean): JsonValue {
  const fn: { [k: string]: JsonValue } = { name: t.name };
  // harnesses put keys in various orders; vLLM's model_dump re-orders them
  if (allowMissingDescription && r() < 0.15) {
    fn['parameters'] = t.parameters;
  } else if (r() < 0.5) {
    fn['parameters'] = t.parameters;
    fn['description'] = t.description;
  } else {
    fn['description'] = t.description;
    fn['parameters'] = t.parameters;
  }
  if (r() < 0.1) fn['strict'] = true;
  return { type: 'function', function: fn };
}

export function generateCases(perFamily: number, seed: number): Case[] {
  const cases: Case[] = [];
  for (const family of ['qwen3', 'deepseek_v3'] as const) {
    const r = seededRandom(seed + (family === 'qwen3' ? 0 : 1000003));
    for (let n = 0; n < perFamily; n++) {
      const useTools = r() < 0.75;
      const toolDefs = useTools ? TOOLS.filter(() => r() < 0.6) : [];
      if (useTools && toolDefs.length === 0) toolDefs.push(pick(r, TOOLS));
      const tools = toolDefs.length ? toolDefs.map((t) => toolSpec(r, t, true)) : null;
      const messages: JsonValue[] = [];
      if (r() < 0.6)
        messages.push({ role: 'system', content: pick(r, ['You are a helpful assistant.', '你是一个乐于助人的助手。', 'Be terse.\nAnswer in JSON.', '']) });
      const turns = 1 + Math.floor(r() * 4);
      let toolCallCounter = 0;
      for (let t = 0; t < turns; t++) {
        messages.push({
          role: 'user',
          content:
            r() < 0.1
              ? [
                  { type: 'text', text: pick(r, TEXTS) },
                  { type: 'text', text: pick(r, TEXTS) },
                ]
              : pick(r, TEXTS),
        });
        const steps = toolDefs.length ? Math.floor(r() * 3) : 0;
        const last = t === turns - 1;
        for (let s = 0; s < steps; s++) {
          const nCalls = 1 + Math.floor(r() * (r() < 0.3 ? 3 : 1));
          const calls: JsonValue[] = [];
          for (let c = 0; c < nCalls; c++) {
            const td = pick(r, toolDefs);
            calls.push({ id: `call_${++toolCallCounter}`, type: 'function', function: { name: td.name, arguments: argumentsFor(r, td) } });
          }
          const msg: { [k: string]: JsonValue } = { role: 'assistant' };
          const contentChoice = r();
          const nullBias = 0.5;
          msg['content'] =
            contentChoice < nullBias ? null : contentChoice < 0.65 ? '' : pick(r, ['Let me check.', '我来查一下。', 'Calling the tool now 🔧', '\nOK\n']);
          const reasoningChoice = r();
          if (reasoningChoice < 0.35) msg['reasoning'] = pick(r, REASONINGS);
          else if (reasoningChoice < 0.55) msg['reasoning_content'] = pick(r, REASONINGS);
          msg['tool_calls'] = calls;
          messages.push(msg);
          for (const call of calls) {
            const id = (call as { id: string }).id;
            messages.push({ role: 'tool', tool_call_id: id, content: r() < 0.1 ? null : pick(r, TOOL_RESULTS) });
          }
        }
        if (!last || r() < 0.25) {
          const msg: { [k: string]: JsonValue } = {
            role: 'assistant',
            content: pick(r, [...TEXTS.slice(0, 8), '<think>\ninline reasoning\n</think>\n\nAnswer after inline think']),
          };
          if (r() < 0.3) msg['reasoning'] = pick(r, REASONINGS);
          messages.push(msg);
        }
      }
      const endsWithAssistant = (messages[messages.length - 1] as { role: string }).role === 'assistant';
      const kwargs: { [k: string]: JsonValue } = {};
      if (family === 'qwen3') {
        const et = r();
        if (et < 0.3) kwargs['enable_thinking'] = false;
        else if (et < 0.6) kwargs['enable_thinking'] = true;
      }
      cases.push({
        id: `${family}-${String(n).padStart(3, '0')}`,
        family,
        messages,
        tools,
        add_generation_prompt: endsWithAssistant ? r() < 0.3 : true,
        kwargs,
        accept_reasoning_content_key: r() < 0.3,
      });
    }
  }
  return cases;
}

/** One case as a line of JSON in Python's layout. */
export function caseJson(c: Case): string {
  return pyJsonDumps(c as unknown as JsonValue, { ensureAscii: false });
}
