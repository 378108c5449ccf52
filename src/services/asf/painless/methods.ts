import { checkCollectionSize, checkStringLength } from './budget.js';
import { illegalArgument, nullPointer, ScriptRuntimeError } from './errors.js';
import {
  asInt,
  asString,
  double,
  int,
  isList,
  isMap,
  isNum,
  javaString,
  javaType,
  type JNum,
  mapKey,
  ofType,
  valuesEqual,
  type Value,
  type ValueList,
  type ValueMap,
} from './values.js';

/**
 * The methods a script may call, each written out here for its receiver's kind: nothing is ever looked up on a
 * JavaScript object by name, so a script reaches only what is listed.
 */

/**
 * Accounts for what a call allocates (characters of new strings, new elements) against the run's budget; its `step`
 * is called once per element a call visits, so that a scan over a long list stays within the time budget.
 */
export type Charge = ((units: number) => void) & { step: () => void };

type Method<R> = (self: R, args: Value[], charge: Charge) => Value;

const str = (s: string, charge: Charge) => {
  checkStringLength(s.length);
  charge(s.length);
  return s;
};
const index = (v: Value, what: string) => asInt(v, what);
/** Java's `String.trim`: characters up to U+0020 at both ends (not every Unicode blank, as JavaScript's). */
export const javaTrim = (s: string) => s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');

/** The argument counts each method takes: a call with another count is an error, never a call that ignores some. */
const ARITIES: Record<string, Record<string, number[]>> = {
  string: {
    length: [0],
    isEmpty: [0],
    contains: [1],
    startsWith: [1],
    endsWith: [1],
    indexOf: [1],
    lastIndexOf: [1],
    toLowerCase: [0],
    toUpperCase: [0],
    trim: [0],
    concat: [1],
    replace: [2],
    equalsIgnoreCase: [1],
    substring: [1, 2],
    splitOnToken: [1],
  },
  map: {
    size: [0],
    isEmpty: [0],
    containsKey: [1],
    containsValue: [1],
    get: [1],
    getOrDefault: [2],
    put: [2],
    remove: [1],
    clear: [0],
    keySet: [0],
    values: [0],
    replace: [2],
  },
  list: {
    size: [0],
    isEmpty: [0],
    get: [1],
    set: [2],
    add: [1, 2],
    addAll: [1],
    remove: [1],
    contains: [1],
    indexOf: [1],
    lastIndexOf: [1],
    clear: [0],
  },
  number: { intValue: [0], longValue: [0], doubleValue: [0] },
  any: { toString: [0], equals: [1] },
};

const STRING_METHODS: Record<string, Method<string>> = {
  length: (s) => int(s.length),
  isEmpty: (s) => s.length === 0,
  contains: (s, [x]) => s.includes(asString(x, 'contains')),
  startsWith: (s, [x]) => s.startsWith(asString(x, 'startsWith')),
  endsWith: (s, [x]) => s.endsWith(asString(x, 'endsWith')),
  indexOf: (s, [x]) => int(s.indexOf(asString(x, 'indexOf'))),
  lastIndexOf: (s, [x]) => int(s.lastIndexOf(asString(x, 'lastIndexOf'))),
  toLowerCase: (s, _a, c) => str(s.toLowerCase(), c),
  toUpperCase: (s, _a, c) => str(s.toUpperCase(), c),
  trim: (s, _a, c) => str(javaTrim(s), c),
  concat: (s, [x], c) => {
    const tail = asString(x, 'concat');
    checkStringLength(s.length + tail.length);
    return str(s + tail, c);
  },
  replace: (s, [a, b], c) => {
    const parts = s.split(asString(a, 'replace'));
    const by = asString(b, 'replace');
    // Its length is known before it is built: a short string with many matches cannot make a huge one first.
    checkStringLength(s.length + (parts.length - 1) * (by.length - asString(a, 'replace').length));
    return str(parts.join(by), c);
  },
  equalsIgnoreCase: (s, [x]) => typeof x === 'string' && s.toLowerCase() === x.toLowerCase(),
  substring: (s, [b, e], c) => {
    const begin = index(b, 'substring');
    const end = e === undefined ? s.length : index(e, 'substring');
    if (begin < 0 || end > s.length || begin > end)
      throw new ScriptRuntimeError(
        'string_index_out_of_bounds_exception',
        `begin ${begin}, end ${end}, length ${s.length}`,
      );
    return str(s.slice(begin, end), c);
  },
  splitOnToken: (s, [t], c) => {
    const parts = s.split(asString(t, 'splitOnToken'));
    checkCollectionSize(parts.length);
    c(s.length + parts.length);
    return parts;
  },
};

const MAP_METHODS: Record<string, Method<ValueMap>> = {
  size: (m) => int(m.size),
  isEmpty: (m) => m.size === 0,
  containsKey: (m, [k]) => typeof k === 'string' && m.has(k),
  containsValue: (m, [v], c) => [...m.values()].some((x) => valuesEqual(x, v, true, c.step)),
  get: (m, [k]) => (typeof k === 'string' ? (m.get(k) ?? null) : null),
  getOrDefault: (m, [k, d]) => (typeof k === 'string' && m.has(k) ? m.get(k)! : d),
  put: (m, [k, v], c) => {
    const key = mapKey(k);
    const previous = m.get(key) ?? null;
    if (!m.has(key)) {
      checkCollectionSize(m.size + 1);
      c(key.length + 1);
    }
    m.set(key, v);
    return previous;
  },
  remove: (m, [k]) => {
    if (typeof k !== 'string') return null;
    const previous = m.get(k) ?? null;
    m.delete(k);
    return previous;
  },
  clear: (m) => {
    m.clear();
    return null;
  },
  replace: (m, [k, v]) => {
    if (typeof k !== 'string' || !m.has(k)) return null;
    const previous = m.get(k)!;
    m.set(k, v);
    return previous;
  },
  keySet: (m, _a, c) => {
    c(m.size);
    return [...m.keys()];
  },
  values: (m, _a, c) => {
    c(m.size);
    return [...m.values()];
  },
};

function listIndex(l: ValueList, v: Value, forInsert = false): number {
  const i = index(v, 'a list index');
  if (i < 0 || i > l.length || (i === l.length && !forInsert))
    throw new ScriptRuntimeError('index_out_of_bounds_exception', `Index ${i} out of bounds for length ${l.length}`);
  return i;
}

const LIST_METHODS: Record<string, Method<ValueList>> = {
  size: (l) => int(l.length),
  isEmpty: (l) => l.length === 0,
  get: (l, [i]) => l[listIndex(l, i)],
  set: (l, [i, v]) => {
    const at = listIndex(l, i);
    const previous = l[at];
    l[at] = v;
    return previous;
  },
  add: (l, args, c) => {
    checkCollectionSize(l.length + 1);
    c(1);
    if (args.length === 2) l.splice(listIndex(l, args[0], true), 0, args[1]);
    else l.push(args[0]);
    return true;
  },
  addAll: (l, [x], c) => {
    if (!isList(x)) throw illegalArgument(`addAll needs a list; got ${javaType(x)}`);
    checkCollectionSize(l.length + x.length);
    c(x.length);
    // One by one: spreading a long list as arguments would overflow the stack; a copy, since x may be l itself.
    for (const v of x.slice()) l.push(v);
    return x.length > 0;
  },
  // Java picks remove(int index) for an int argument and remove(Object) for anything else.
  remove: (l, [x], c) => {
    if (isNum(x) && x.type === 'int') return l.splice(listIndex(l, x), 1)[0];
    const at = l.findIndex((v) => valuesEqual(v, x, true, c.step));
    if (at !== -1) l.splice(at, 1);
    return at !== -1;
  },
  contains: (l, [x], c) => l.some((v) => valuesEqual(v, x, true, c.step)),
  indexOf: (l, [x], c) => int(l.findIndex((v) => valuesEqual(v, x, true, c.step))),
  lastIndexOf: (l, [x], c) => int(l.findLastIndex((v) => valuesEqual(v, x, true, c.step))),
  clear: (l) => {
    l.length = 0;
    return null;
  },
};

const NUMBER_METHODS: Record<string, Method<JNum>> = {
  intValue: (n) => ofType('int', Math.trunc(n.value)),
  longValue: (n) => ofType('long', Math.trunc(n.value)),
  doubleValue: (n) => double(n.value),
};

const ANY_METHODS: Record<string, Method<Value>> = {
  toString: (v: Value, _a: Value[], c: Charge) => str(javaString(v), c),
  equals: (v, [x], c) => valuesEqual(v, x, true, c.step),
};

/** Every method name of the subset: a call of any other name is refused before the script runs. */
export const METHOD_NAMES = new Set(
  [STRING_METHODS, MAP_METHODS, LIST_METHODS, NUMBER_METHODS, ANY_METHODS].flatMap((m) => Object.keys(m)),
);

const own = <T>(table: Record<string, T>, name: string): T | undefined =>
  Object.hasOwn(table, name) ? table[name] : undefined;

export function callMethod(self: Value, name: string, args: Value[], charge: Charge): Value {
  if (self === null) throw nullPointer(`call ${name}()`);
  const kind =
    typeof self === 'string' ? 'string' : isMap(self) ? 'map' : isList(self) ? 'list' : isNum(self) ? 'number' : 'any';
  const tables: Array<[string, Record<string, Method<never>>]> = [
    [
      kind,
      { string: STRING_METHODS, map: MAP_METHODS, list: LIST_METHODS, number: NUMBER_METHODS, any: {} }[kind] as Record<
        string,
        Method<never>
      >,
    ],
    ['any', ANY_METHODS as Record<string, Method<never>>],
  ];
  for (const [table, methods] of tables) {
    const method = own(methods, name);
    if (method && own(ARITIES[table], name)!.includes(args.length))
      return (method as Method<Value>)(self, args, charge);
  }
  throw illegalArgument(`dynamic method [${javaType(self)}, ${name}/${args.length}] not found`);
}

function parseNumber(type: 'int' | 'long' | 'double', v: Value): JNum {
  const text = asString(v, `parsing a ${type}`);
  const trimmed = type === 'double' ? text.trim() : text;
  const valid =
    type === 'double' ? /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/.test(trimmed) : /^[+-]?\d+$/.test(trimmed);
  if (!valid) throw new ScriptRuntimeError('number_format_exception', `For input string: "${text}"`);
  const n = Number(trimmed.replace(/[fFdD]$/, ''));
  if (type === 'int' && (n < -2_147_483_648 || n > 2_147_483_647))
    throw new ScriptRuntimeError('number_format_exception', `For input string: "${text}"`);
  return ofType(type, n);
}

const num = (v: Value, what: string): JNum => {
  if (isNum(v)) return v;
  if (v === null) throw nullPointer(what);
  throw illegalArgument(`${what} needs a number; got ${javaType(v)}`);
};
const widest = (a: JNum, b: JNum) =>
  a.type === 'double' || b.type === 'double'
    ? 'double'
    : a.type === 'float' || b.type === 'float'
      ? 'float'
      : a.type === 'long' || b.type === 'long'
        ? 'long'
        : 'int';

type Static = (args: Value[], charge: Charge) => Value;
const STATICS: Record<string, Record<string, Static>> = {
  Math: {
    abs: ([x]) => ofType(num(x, 'Math.abs').type, Math.abs(num(x, 'Math.abs').value)),
    max: ([a, b]) =>
      ofType(widest(num(a, 'Math.max'), num(b, 'Math.max')), Math.max((a as JNum).value, (b as JNum).value)),
    min: ([a, b]) =>
      ofType(widest(num(a, 'Math.min'), num(b, 'Math.min')), Math.min((a as JNum).value, (b as JNum).value)),
    floor: ([x]) => double(Math.floor(num(x, 'Math.floor').value)),
    ceil: ([x]) => double(Math.ceil(num(x, 'Math.ceil').value)),
    sqrt: ([x]) => double(Math.sqrt(num(x, 'Math.sqrt').value)),
    pow: ([a, b]) => double(Math.pow(num(a, 'Math.pow').value, num(b, 'Math.pow').value)),
    // Java rounds half up (toward positive infinity), as Math.round does here; a double rounds to a long.
    round: ([x]) => {
      const n = num(x, 'Math.round');
      return ofType(n.type === 'float' ? 'int' : 'long', Math.round(n.value));
    },
  },
  Integer: {
    parseInt: ([x]) => parseNumber('int', x),
    toString: ([x]: Value[], c: Charge) => str(javaString(num(x, 'Integer.toString')), c),
  },
  Long: {
    parseLong: ([x]) => parseNumber('long', x),
    toString: ([x]: Value[], c: Charge) => str(javaString(num(x, 'Long.toString')), c),
  },
  Double: {
    parseDouble: ([x]) => parseNumber('double', x),
    toString: ([x]: Value[], c: Charge) => str(javaString(num(x, 'Double.toString')), c),
  },
  String: {
    valueOf: ([x]: Value[], c: Charge) => str(javaString(x), c),
    join: ([sep, parts], c) => {
      if (!isList(parts)) throw illegalArgument('String.join needs a separator and a list');
      const separator = asString(sep, 'String.join');
      const texts = parts.map((p) => javaString(p));
      checkStringLength(
        texts.reduce((length, t) => length + t.length, separator.length * Math.max(0, texts.length - 1)),
      );
      return str(texts.join(separator), c);
    },
  },
};

export const STATIC_METHODS = new Map(
  Object.entries(STATICS).map(([cls, methods]) => [cls, new Set(Object.keys(methods))]),
);
/** How many arguments each static takes (known when the script is compiled, so a wrong count is refused then). */
export const STATIC_ARITY: Record<string, number> = {
  'Math.abs': 1,
  'Math.max': 2,
  'Math.min': 2,
  'Math.floor': 1,
  'Math.ceil': 1,
  'Math.sqrt': 1,
  'Math.pow': 2,
  'Math.round': 1,
  'Integer.parseInt': 1,
  'Integer.toString': 1,
  'Long.parseLong': 1,
  'Long.toString': 1,
  'Double.parseDouble': 1,
  'Double.toString': 1,
  'String.valueOf': 1,
  'String.join': 2,
};
export const STATIC_CONSTANTS: Record<string, Value> = {
  'Integer.MAX_VALUE': int(2_147_483_647),
  'Integer.MIN_VALUE': int(-2_147_483_648),
  'Math.PI': double(Math.PI),
  'Math.E': double(Math.E),
};

export function callStatic(cls: string, name: string, args: Value[], charge: Charge): Value {
  const method = own(STATICS[cls] ?? {}, name);
  if (!method) throw illegalArgument(`${cls}.${name} is not supported`);
  return method(args, charge);
}
