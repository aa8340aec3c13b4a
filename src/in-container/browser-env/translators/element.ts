import { key } from './keys-translate.js';
import { PyParseError, parseCall } from './python-call.js';
import { ActionInputError, type Translator, isRecord, num, str } from './types.js';

/**
 * Element-level actions by ARIA-snapshot ref (BrowserGym / Playwright MCP style): an object
 * `{action: "click", ref: "e12"}` (names with or without a `browser_` prefix), or a BrowserGym call string
 * `click('e12')`, `fill('e12', 'text')`, `select_option('e3', 'blue')`, `goto('http://...')`, `tab_focus(1)`.
 */
export const fromElement: Translator = (raw) => {
  let a: Record<string, unknown>;
  if (typeof raw === 'string') {
    try {
      const call = parseCall(raw);
      const [p0, p1] = call.args;
      a = { action: call.name, ...call.kwargs };
      if (p0 !== undefined) a[firstParam(call.name)] = p0;
      if (p1 !== undefined) a[call.name === 'select_option' ? 'values' : 'text'] = p1;
    } catch (err) {
      throw new ActionInputError('bad_action', `cannot parse the element action "${raw.slice(0, 80)}": ${(err as PyParseError).message}`);
    }
  } else if (isRecord(raw) && typeof (raw.action ?? raw.name) === 'string') {
    a = { ...(isRecord(raw.arguments) ? raw.arguments : raw), action: raw.action ?? raw.name };
  } else {
    throw new ActionInputError('bad_action', 'an element action is {action, ref, ...} or a call like "click(\'e12\')"');
  }
  const ref = () => String(a.ref ?? a.bid ?? a.element ?? fail('this action needs ref (from the aria_snapshot, e.g. "e12")'));
  const name = str(a.action, 'action').replace(/^browser_/, '');
  switch (name) {
    case 'click':
      return [{ type: 'click_ref', ref: ref() }];
    case 'fill':
    case 'type':
      return [{ type: 'fill_ref', ref: ref(), text: str(a.text ?? a.value, 'text') }];
    case 'select_option':
    case 'select': {
      const v = a.values ?? a.value ?? a.options;
      const values = Array.isArray(v) ? v.map((x, i) => str(x, `values[${i}]`)) : [str(v, 'values')];
      return [{ type: 'select_ref', ref: ref(), values }];
    }
    case 'hover':
      return [{ type: 'hover_ref', ref: ref() }];
    case 'goto':
    case 'navigate':
      return [{ type: 'goto', url: str(a.url, 'url') }];
    case 'go_back':
    case 'navigate_back':
      return [{ type: 'go_back' }];
    case 'go_forward':
    case 'navigate_forward':
      return [{ type: 'go_forward' }];
    case 'new_tab':
    case 'tab_new':
      return [{ type: 'new_tab', ...(typeof a.url === 'string' ? { url: a.url } : {}) }];
    case 'switch_tab':
    case 'tab_focus':
    case 'tab_select':
      return [{ type: 'switch_tab', index: num(a.index, 'index') }];
    case 'close_tab':
    case 'tab_close':
      return [{ type: 'close_tab', ...(a.index === undefined ? {} : { index: num(a.index, 'index') }) }];
    case 'press':
    case 'press_key':
    case 'keyboard_press':
      return [
        {
          type: 'key',
          keys: str(a.key ?? a.text, 'key')
            .split('+')
            .map(key),
        },
      ];
    case 'scroll':
      return [{ type: 'scroll', dx: num(a.dx ?? 0, 'dx'), dy: num(a.dy ?? 0, 'dy') }];
    case 'wait':
      return [{ type: 'wait', ms: num(a.ms ?? 1000, 'ms') }];
    case 'send_msg_to_user':
    case 'done':
      return [{ type: 'done', ...(typeof (a.answer ?? a.text) === 'string' ? { answer: (a.answer ?? a.text) as string } : {}) }];
    case 'report_infeasible':
    case 'fail':
      return [{ type: 'fail', ...(typeof (a.reason ?? a.text) === 'string' ? { reason: (a.reason ?? a.text) as string } : {}) }];
    default:
      throw new ActionInputError('unknown_action', `unknown element action "${name}"`);
  }
};

function firstParam(name: string): string {
  if (['goto', 'navigate', 'new_tab', 'tab_new'].includes(name)) return 'url';
  if (['tab_focus', 'switch_tab', 'tab_close', 'close_tab'].includes(name)) return 'index';
  if (['press', 'keyboard_press'].includes(name)) return 'key';
  if (['send_msg_to_user', 'report_infeasible'].includes(name)) return 'text';
  return 'ref';
}

function fail(message: string): never {
  throw new ActionInputError('bad_action', message);
}
