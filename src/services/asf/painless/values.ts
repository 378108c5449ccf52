import { classCast, illegalArgument, nullPointer, ScriptRuntimeError } from './errors.js';

/**
 * Values as the script language has them: Java's numeric types (an `int` divides as an int, `5.0` prints as
 * `5.0`), strings, booleans, null, maps and lists. Maps are JavaScript `Map`s, so that no key of a document
 * (`__proto__`, `constructor`) can ever reach an object prototype.
 */
export type NumType = 'int' | 'long' | 'float' | 'double';

export class JNum {
  constructor(
    readonly type: NumType,
    readonly value: number,
  ) {}
}

export type Value = null | boolean | string | JNum | ValueMap | ValueList;
export type ValueMap = Map<string, Value>;
export type ValueList = Value[];

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

export const int = (n: number) => new JNum('int', n);
export const double = (n: number) => new JNum('double', n);

export const isNum = (v: unknown): v is JNum => v instanceof JNum;
export const isMap = (v: unknown): v is ValueMap => v instanceof Map;
export const isList = (v: unknown): v is ValueList => Array.isArray(v);

/** A long result must stay exact: past 2^53 the emulator would silently round, so it refuses instead. */
function exactLong(n: number): JNum {
  if (!Number.isSafeInteger(n))
    throw new ScriptRuntimeError(
      'arithmetic_exception',
      `long value ${n} is beyond ±2^53, which the emulator does not represent exactly`,
    );
  return new JNum('long', n);
}

/** A JSON number of a document, typed as the search engine reads it: whole numbers int or long, others double. */
export function numberFromJson(n: number): JNum {
  if (!Number.isInteger(n)) return double(n);
  if (n >= INT_MIN && n <= INT_MAX) return int(n);
  return exactLong(n);
}

const RANK: Record<NumType, number> = { int: 0, long: 1, float: 2, double: 3 };

/** Java's binary numeric promotion. */
export const promoted = (a: JNum, b: JNum): NumType => (RANK[a.type] >= RANK[b.type] ? a.type : b.type);

/** A number of the given type, with Java's rules: ints wrap at 32 bits, floats round to single precision. */
export function ofType(type: NumType, n: number): JNum {
  switch (type) {
    case 'int':
      return int(n | 0);
    case 'long':
      return exactLong(n);
    case 'float':
      return new JNum('float', Math.fround(n));
    case 'double':
      return double(n);
  }
}

export function arithmetic(op: string, a: JNum, b: JNum): JNum {
  const type = promoted(a, b);
  const integral = type === 'int' || type === 'long';
  switch (op) {
    case '+':
      return ofType(type, a.value + b.value);
    case '-':
      return ofType(type, a.value - b.value);
    case '*':
      return type === 'int' ? int(Math.imul(a.value, b.value)) : ofType(type, a.value * b.value);
    case '/':
      if (integral && b.value === 0) throw new ScriptRuntimeError('arithmetic_exception', '/ by zero');
      return ofType(type, integral ? Math.trunc(a.value / b.value) : a.value / b.value);
    case '%':
      if (integral && b.value === 0) throw new ScriptRuntimeError('arithmetic_exception', '/ by zero');
      return ofType(type, a.value % b.value);
  }
  throw new Error(`not an arithmetic operator: ${op}`);
}

/** Java's narrowing of a double to an integral type: toward zero, NaN to 0, saturated at the type's bounds. */
function narrowed(n: number, min: number, max: number): number {
  if (Number.isNaN(n)) return 0;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

/** An explicit cast `(int) x`. */
export function castNumber(type: NumType, v: JNum): JNum {
  if (type === 'int') return int(v.type === 'long' ? v.value | 0 : narrowed(v.value, INT_MIN, INT_MAX));
  if (type === 'long') return exactLong(narrowed(v.value, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  return ofType(type, v.value);
}

/** The Java class name of a value, as the search engine writes it in its messages. */
export function javaType(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (isNum(v))
    return { int: 'java.lang.Integer', long: 'java.lang.Long', float: 'java.lang.Float', double: 'java.lang.Double' }[
      v.type
    ];
  if (isMap(v)) return 'java.util.HashMap';
  return 'java.util.ArrayList';
}

/** The shortest decimal digits that read back as the same single-precision float (Java's `Float.toString`). */
export function shortestFloat(f: number): number {
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

/** Java's `Double.toString`: `5.0`, `0.1`, `1.0E10`, `1.0E-5`. */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const text = String(n);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa, exponent] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}

/** Java's `String.valueOf`: what string concatenation and templates print. */
export function javaString(v: Value, seen = new Set<unknown>()): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isNum(v)) {
    if (v.type === 'int' || v.type === 'long') return String(v.value);
    return javaDouble(v.type === 'float' ? shortestFloat(v.value) : v.value);
  }
  if (seen.has(v)) return '(this Collection)';
  seen.add(v);
  const text = isMap(v)
    ? `{${[...v].map(([k, x]) => `${k}=${javaString(x, seen)}`).join(', ')}}`
    : `[${v.map((x) => javaString(x, seen)).join(', ')}]`;
  seen.delete(v);
  return text;
}

/**
 * Painless's `==`: numbers of different types compare by value (`1 == 1.0`); inside maps and lists, Java's
 * `equals` holds, where an Integer never equals a Double.
 */
/** `step` is called once per element compared (the run's time budget: `stepper`). */
export function valuesEqual(a: Value, b: Value, nested = false, step?: () => void): boolean {
  step?.();
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (isNum(a) && isNum(b)) return a.value === b.value && (!nested || a.type === b.type);
  if (isMap(a) && isMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !valuesEqual(x, b.get(k)!, true, step)) return false;
    return true;
  }
  if (isList(a) && isList(b)) return a.length === b.length && a.every((x, i) => valuesEqual(x, b[i], true, step));
  return false;
}

export function compareNumbers(op: string, a: Value, b: Value): boolean {
  if (a === null || b === null) throw nullPointer(`compare (${op})`);
  if (typeof a === 'string' && typeof b === 'string') {
    // Painless compares only numbers with < and >; strings need compareTo.
    throw classCast(`cannot apply [${op}] to types [java.lang.String] and [java.lang.String]`);
  }
  if (!isNum(a) || !isNum(b)) throw classCast(`cannot apply [${op}] to types [${javaType(a)}] and [${javaType(b)}]`);
  switch (op) {
    case '<':
      return a.value < b.value;
    case '<=':
      return a.value <= b.value;
    case '>':
      return a.value > b.value;
    default:
      return a.value >= b.value;
  }
}

export function asBoolean(v: Value, what: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null) throw nullPointer(`use as a boolean in ${what}`);
  throw classCast(`cannot cast ${javaType(v)} to boolean in ${what}`);
}

export function asInt(v: Value, what: string): number {
  if (isNum(v) && v.type === 'int') return v.value;
  if (v === null) throw nullPointer(what);
  throw classCast(`${what} needs an int; got ${javaType(v)}`);
}

export function asString(v: Value, what: string): string {
  if (typeof v === 'string') return v;
  if (v === null) throw nullPointer(what);
  throw classCast(`${what} needs a String; got ${javaType(v)}`);
}

export function mapKey(v: Value): string {
  if (typeof v === 'string') return v;
  throw illegalArgument(`map keys are strings in the emulator; got ${javaType(v)}`);
}
