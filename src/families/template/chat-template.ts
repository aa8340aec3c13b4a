/**
 * A chat template rendered with @huggingface/jinja, set up to behave like
 * transformers' `_compile_jinja_template` (src/transformers/utils/chat_template_utils.py):
 *
 *   ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
 *                                 extensions=[AssistantTracker, jinja2.ext.loopcontrols])
 *   filters["tojson"]  = json.dumps(x, ensure_ascii=False, indent, separators, sort_keys)
 *   globals["raise_exception"], globals["strftime_now"]
 *
 * @huggingface/jinja always lexes with trim_blocks/lstrip_blocks and supports
 * break/continue. Where it differs from jinja2, each interpreter gets Python's way:
 *  - its `tojson` prints floats with JSON.stringify (1.0 -> "1") and sorts keys
 *    with localeCompare: here it is Python's json.dumps (py-json.ts);
 *  - `Template.render` converts plain JS objects, losing integral floats, big ints
 *    and integer-like key order: here runtime values are built from `JsonValue`s
 *    (json-value.ts);
 *  - `str.strip/lstrip/rstrip(chars)`, `str + int`, attribute access on an undefined
 *    value and printing `None`, `True`, `2.0` or a list follow Python (below).
 */
import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import { type JsonValue, PyFloat, PyInt, isPlainObject, objectEntries } from '../json/json-value.js';
import { pyFloatRepr, pyJsonDumps } from '../json/py-json.js';

type Runtime = ReturnType<Environment['lookupVariable']>;
type Program = ReturnType<typeof parse>;
type RuntimeCtor = new (value?: unknown) => Runtime;

/** The runtime value classes are not exported; take them from values the library builds itself. */
const ctors = (() => {
  const env = new Environment();
  const probe = (v: unknown): RuntimeCtor => {
    const name = `v${env.variables.size}`;
    env.set(name, v);
    return env.lookupVariable(name).constructor as RuntimeCtor;
  };
  return {
    Integer: probe(1),
    Float: probe(1.5),
    String: probe(''),
    Boolean: probe(true),
    Null: probe(null),
    Undefined: probe(undefined),
    Array: probe([]),
    Object: probe({}),
    Function: probe(() => null),
  };
})();

/** Values created from PyInt keep their exact digits for `tojson`. */
const bigIntLexemes = new WeakMap<object, string>();

export type TemplateValue = JsonValue | undefined | ((...args: never[]) => unknown);

export function toRuntime(v: TemplateValue): Runtime {
  if (v === undefined) return new ctors.Undefined();
  if (v === null) return new ctors.Null(null);
  if (typeof v === 'string') return new ctors.String(v);
  if (typeof v === 'boolean') return new ctors.Boolean(v);
  if (typeof v === 'number') return Number.isInteger(v) ? new ctors.Integer(v) : new ctors.Float(v);
  if (v instanceof PyFloat) return new ctors.Float(v.value);
  if (v instanceof PyInt) {
    const r = new ctors.Integer(Number(v.lexeme));
    bigIntLexemes.set(r, v.lexeme);
    return r;
  }
  if (typeof v === 'function') {
    const fn = v as (...args: unknown[]) => unknown;
    return new ctors.Function((args: Runtime[]) => toRuntime((fn(...args.map((a) => a.value)) ?? null) as JsonValue));
  }
  if (Array.isArray(v)) return new ctors.Array(v.map(toRuntime));
  if (v instanceof Map || isPlainObject(v)) {
    return new ctors.Object(new Map(objectEntries(v).map(([k, x]) => [k, toRuntime(x)])));
  }
  throw new TypeError('unsupported template value');
}

/** Back from runtime values to JsonValues (for tojson), keeping float-ness and key order. */
function fromRuntime(r: Runtime): JsonValue {
  switch (r.type) {
    case 'NullValue':
    case 'UndefinedValue':
      return null; // @huggingface/jinja and jinja2's Undefined both serialise as null here
    case 'IntegerValue': {
      const lex = bigIntLexemes.get(r);
      return lex !== undefined ? new PyInt(lex) : (r.value as number);
    }
    case 'FloatValue': {
      const n = r.value as number;
      return Number.isInteger(n) ? new PyFloat(n) : n;
    }
    case 'StringValue':
    case 'BooleanValue':
      return r.value as string | boolean;
    case 'ArrayValue':
    case 'TupleValue':
      return (r.value as Runtime[]).map(fromRuntime);
    case 'ObjectValue':
    case 'KeywordArgumentsValue':
    case 'NamespaceValue': {
      const m = new Map<string, JsonValue>();
      for (const [k, x] of r.value as Map<string, Runtime>) m.set(k, fromRuntime(x));
      return m;
    }
    default:
      throw new TypeError(`Object of type ${r.type} is not JSON serializable`);
  }
}

interface FilterNode {
  type: string;
  value?: string;
  callee?: { type: string; value: string };
  args?: unknown[];
}
type ApplyFilter = (this: Interpreter, operand: Runtime, filter: FilterNode, env: Environment) => Runtime;
type EvaluateArguments = (this: Interpreter, args: unknown[], env: Environment) => [Runtime[], Map<string, Runtime>];

const interpreterProto = Interpreter.prototype as unknown as {
  applyFilter: ApplyFilter;
  evaluateArguments: EvaluateArguments;
};

/** `tojson` as transformers defines it (Python json.dumps, ensure_ascii=False); other filters unchanged. */
const hfApplyFilter: ApplyFilter = function (operand, filter, env) {
  if (filter.type === 'Identifier' && filter.value === 'tojson') {
    return new ctors.String(pyJsonDumps(fromRuntime(operand), { ensureAscii: false }));
  }
  if (filter.type === 'CallExpression' && filter.callee?.type === 'Identifier' && filter.callee.value === 'tojson') {
    const [pos, kw] = interpreterProto.evaluateArguments.call(this, filter.args ?? [], env);
    // Python signature: tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)
    const arg = (i: number, name: string): Runtime | undefined => kw.get(name) ?? pos[i];
    const ensure = arg(0, 'ensure_ascii');
    const indent = arg(1, 'indent');
    const seps = arg(2, 'separators');
    const sort = arg(3, 'sort_keys');
    const sepPair =
      seps && (seps.type === 'ArrayValue' || seps.type === 'TupleValue') ? ((seps.value as Runtime[]).map((s) => String(s.value)) as [string, string]) : null;
    return new ctors.String(
      pyJsonDumps(fromRuntime(operand), {
        ensureAscii: ensure ? Boolean(ensure.value) : false,
        indent: indent && indent.type !== 'NullValue' && indent.type !== 'UndefinedValue' ? (indent.value as number | string) : null,
        separators: sepPair,
        sortKeys: sort ? Boolean(sort.value) : false,
      }),
    );
  }
  return interpreterProto.applyFilter.call(this, operand, filter, env);
};

/** Python's str.isspace() set, which str.strip() uses when called without chars. */
const PY_WHITESPACE = new Set([
  ...'\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000',
]);

/** Python's str.strip / lstrip / rstrip([chars]) over code points. */
export function pyStrip(s: string, mode: 'strip' | 'lstrip' | 'rstrip', chars?: string | null): string {
  const set = chars === undefined || chars === null ? PY_WHITESPACE : new Set([...chars]);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  if (mode !== 'rstrip') while (a < b && set.has(cps[a] ?? '')) a++;
  if (mode !== 'lstrip') while (b > a && set.has(cps[b - 1] ?? '')) b--;
  return cps.slice(a, b).join('');
}

interface MemberNode {
  type: string;
  object: unknown;
  property: { type: string; value?: unknown };
  computed: boolean;
}
type EvaluateMember = (this: Interpreter, expr: MemberNode, env: Environment) => Runtime;
type Evaluate = (this: Interpreter, node: unknown, env: Environment) => Runtime;
const memberProto = Interpreter.prototype as unknown as { evaluateMemberExpression: EvaluateMember; evaluate: Evaluate };
const STRIP_METHODS = new Set(['strip', 'lstrip', 'rstrip']);

/**
 * @huggingface/jinja's str.strip/lstrip/rstrip ignore their `chars` argument
 * (Qwen3's template calls .strip('\n'), .lstrip('\n'), .rstrip('\n')) and use
 * JS trim()'s whitespace set; these are Python's.
 */
const hfEvaluateMember: EvaluateMember = function (expr, env) {
  const obj = memberProto.evaluate.call(this, expr.object, env);
  // jinja2's default Undefined raises on attribute/item access; @huggingface/jinja returns undefined.
  if (obj.type === 'UndefinedValue') throw new TemplateError('UndefinedError: attribute access on an undefined value');
  const name = expr.property.value;
  if (!expr.computed && typeof name === 'string' && STRIP_METHODS.has(name) && obj.type === 'StringValue') {
    const s = obj.value as string;
    return new ctors.Function((args: Runtime[]) => {
      const c = args[0];
      const chars = c === undefined || c.type === 'NullValue' || c.type === 'UndefinedValue' ? null : String(c.value);
      return new ctors.String(pyStrip(s, name as 'strip', chars));
    });
  }
  // Delegate with the object already evaluated.
  return memberProto.evaluateMemberExpression.call(this, { ...expr, object: evaluated(obj) }, env);
};

/** A node standing for a value already evaluated (see `hfEvaluate`): no scope is made to hold it. */
const EVALUATED = 'OpenForgeEvaluated';
const evaluated = (value: Runtime): { type: string; value: Runtime } => ({ type: EVALUATED, value });
const hfEvaluate: Evaluate = function (node, env) {
  const n = node as { type?: string; value?: Runtime } | undefined;
  return n?.type === EVALUATED ? (n.value as Runtime) : memberProto.evaluate.call(this, node, env);
};

interface BinaryNode {
  type: string;
  operator: { value: string };
  left: unknown;
  right: unknown;
}
type EvaluateBinary = (this: Interpreter, node: BinaryNode, env: Environment) => Runtime;
const binaryProto = Interpreter.prototype as unknown as { evaluateBinaryExpression: EvaluateBinary };
const PY_TYPE: Record<string, string> = {
  IntegerValue: 'int',
  FloatValue: 'float',
  BooleanValue: 'bool',
  ArrayValue: 'list',
  TupleValue: 'tuple',
  ObjectValue: 'dict',
  StringValue: 'str',
};

/**
 * Jinja2 (Python) refuses `str + int` ("can only concatenate str (not "int") to str");
 * @huggingface/jinja concatenates. gpt-oss's template has such a `+` for enum
 * defaults, so a non-string default must fail here as it does in Python.
 */
const hfEvaluateBinary: EvaluateBinary = function (node, env) {
  if (node.operator.value !== '+') return binaryProto.evaluateBinaryExpression.call(this, node, env);
  const left = memberProto.evaluate.call(this, node.left, env);
  const right = memberProto.evaluate.call(this, node.right, env);
  const ls = left.type === 'StringValue';
  const rs = right.type === 'StringValue';
  if (ls !== rs) {
    const other = ls ? right : left;
    const t = PY_TYPE[other.type];
    if (t !== undefined) {
      throw new TemplateError(ls ? `can only concatenate str (not "${t}") to str` : `unsupported operand type(s) for +: '${t}' and 'str'`);
    }
  }
  // Delegate with the operands already evaluated.
  return binaryProto.evaluateBinaryExpression.call(this, { ...node, left: evaluated(left), right: evaluated(right) }, env);
};

/** Python's repr() of a str. */
export function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\\' || ch === quote) out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) {
      out +=
        cp <= 0xff
          ? '\\x' + cp.toString(16).padStart(2, '0')
          : cp <= 0xffff
            ? '\\u' + cp.toString(16).padStart(4, '0')
            : '\\U' + cp.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return out + quote;
}

/** Python's str() of a value as jinja2 prints it (`{{ x }}`): None, True, 1.0, ['a'], {'k': 1}. */
function pyStr(v: Runtime, nested = false): string {
  switch (v.type) {
    case 'UndefinedValue':
      return '';
    case 'NullValue':
      return 'None';
    case 'BooleanValue':
      return v.value ? 'True' : 'False';
    case 'IntegerValue':
      return bigIntLexemes.get(v) ?? String(v.value);
    case 'FloatValue':
      return pyFloatRepr(v.value as number);
    case 'StringValue':
      return nested ? pyReprString(v.value as string) : (v.value as string);
    case 'ArrayValue':
      return '[' + (v.value as Runtime[]).map((x) => pyStr(x, true)).join(', ') + ']';
    case 'TupleValue': {
      const xs = (v.value as Runtime[]).map((x) => pyStr(x, true));
      return '(' + xs.join(', ') + (xs.length === 1 ? ',)' : ')');
    }
    case 'ObjectValue':
      return '{' + [...(v.value as Map<string, Runtime>)].map(([k, x]) => `${pyReprString(k)}: ${pyStr(x, true)}`).join(', ') + '}';
    default:
      return v.toString();
  }
}

/** Statement types that are expressions: their value is printed. */
const EXPRESSIONS = new Set([
  'Identifier',
  'IntegerLiteral',
  'FloatLiteral',
  'StringLiteral',
  'BinaryExpression',
  'MemberExpression',
  'CallExpression',
  'FilterExpression',
  'TestExpression',
  'Ternary',
  'UnaryExpression',
  'ArrayLiteral',
  'TupleLiteral',
  'ObjectLiteral',
  'SelectExpression',
]);
type RenderBlock = (this: Interpreter, statements: { type: string }[], env: Environment) => string;
const blockProto = Interpreter.prototype as unknown as { renderBlock: RenderBlock };

/** Prints expression values the way jinja2 does (str(), so None/True/1.0/['a']), not JS's toString. */
const hfRenderBlock: RenderBlock = function (statements, env) {
  let out = '';
  for (const st of statements) {
    if (st.type === 'StringLiteral' || !EXPRESSIONS.has(st.type)) out += blockProto.renderBlock.call(this, [st], env);
    else out += pyStr(memberProto.evaluate.call(this, st, env));
  }
  return out;
};

/** An interpreter for one render; the overrides are on the instance, not the shared prototype. */
function hfInterpreter(env: Environment): Interpreter {
  const it = new Interpreter(env);
  const own = it as unknown as {
    applyFilter: ApplyFilter;
    evaluateMemberExpression: EvaluateMember;
    evaluateBinaryExpression: EvaluateBinary;
    renderBlock: RenderBlock;
    evaluate: Evaluate;
  };
  own.evaluate = hfEvaluate;
  own.applyFilter = hfApplyFilter;
  own.evaluateMemberExpression = hfEvaluateMember;
  own.evaluateBinaryExpression = hfEvaluateBinary;
  own.renderBlock = hfRenderBlock;
  return it;
}

export interface RenderContext {
  [name: string]: TemplateValue;
}

export interface ChatTemplateOptions {
  /** What `strftime_now(fmt)` returns; transformers uses the wall clock. */
  strftimeNow?: (format: string) => string;
}

export class TemplateError extends Error {}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** `datetime.now().strftime(fmt)` for the directives chat templates use (C locale). */
export function strftime(date: Date, format: string): string {
  const p2 = (n: number): string => String(n).padStart(2, '0');
  return format.replace(/%[YmdHMSbBaAyj%]/g, (d) => {
    switch (d) {
      case '%Y':
        return String(date.getFullYear());
      case '%y':
        return p2(date.getFullYear() % 100);
      case '%m':
        return p2(date.getMonth() + 1);
      case '%d':
        return p2(date.getDate());
      case '%H':
        return p2(date.getHours());
      case '%M':
        return p2(date.getMinutes());
      case '%S':
        return p2(date.getSeconds());
      case '%b':
        return (MONTHS[date.getMonth()] ?? '').slice(0, 3);
      case '%B':
        return MONTHS[date.getMonth()] ?? '';
      case '%a':
        return (DAYS[date.getDay()] ?? '').slice(0, 3);
      case '%A':
        return DAYS[date.getDay()] ?? '';
      case '%j': {
        const start = new Date(date.getFullYear(), 0, 1);
        return String(Math.floor((date.getTime() - start.getTime()) / 86400000) + 1).padStart(3, '0');
      }
      default:
        return '%';
    }
  });
}

/** Python's range(). */
function pyRange(a: number, b?: number, step = 1): number[] {
  const [start, stop] = b === undefined ? [0, a] : [a, b];
  if (step === 0) throw new TemplateError('range() arg 3 must not be zero');
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

export class ChatTemplate {
  private readonly program: Program;
  private readonly globals: [string, Runtime][];

  constructor(
    readonly source: string,
    options: ChatTemplateOptions = {},
  ) {
    this.program = parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
    const strftimeNow = options.strftimeNow ?? ((fmt: string) => strftime(new Date(), fmt));
    const globals: Record<string, TemplateValue> = {
      true: true,
      false: false,
      none: null,
      True: true,
      False: false,
      None: null,
      raise_exception: (msg: string) => {
        throw new TemplateError(msg);
      },
      range: pyRange as (...args: never[]) => unknown,
      strftime_now: strftimeNow,
    };
    this.globals = Object.entries(globals).map(([k, v]) => [k, toRuntime(v)]);
  }

  /** Renders with `context` as the template's variables (messages, tools, add_generation_prompt, ...). */
  render(context: RenderContext): string {
    const env = new Environment();
    for (const [k, v] of this.globals) env.variables.set(k, v);
    for (const [k, v] of Object.entries(context)) env.variables.set(k, toRuntime(v));
    try {
      return hfInterpreter(env).run(this.program).value as string;
    } catch (e) {
      if (e instanceof TemplateError) throw e;
      throw new TemplateError(e instanceof Error ? e.message : String(e));
    }
  }
}
