import { classCast, nullPointer } from './errors.js';
import { castNumber, isList, isMap, isNum, javaType, ofType, type NumType, type Value } from './values.js';

/** The declared types of variables (`int i`, `String s`, `def x`) and what assigning and casting to them does. */

const NUMERIC_TYPES = new Set<string>(['int', 'long', 'float', 'double']);

export function defaultOf(type: string): Value {
  if (NUMERIC_TYPES.has(type)) return ofType(type as NumType, 0);
  return type === 'boolean' ? false : null;
}

/** Assignment to a declared type: widening only (`long x = 1` yes, `int x = 1.5` no), as Java allows it. */
export function coerce(type: string, v: Value): Value {
  switch (type) {
    case 'def':
    case 'Object':
      return v;
    case 'int':
    case 'long':
    case 'float':
    case 'double': {
      const order = ['int', 'long', 'float', 'double'];
      if (isNum(v) && order.indexOf(v.type) <= order.indexOf(type)) return ofType(type, v.value);
      throw v === null ? nullPointer(`assign to ${type}`) : classCast(`cannot cast ${javaType(v)} to ${type}`);
    }
    default:
      return checkReference(type, v);
  }
}

/** An explicit cast `(int) x`: also narrowing between numbers. */
export function cast(type: string, v: Value): Value {
  if (NUMERIC_TYPES.has(type)) {
    if (v === null) throw nullPointer(`cast to ${type}`);
    if (!isNum(v)) throw classCast(`cannot cast ${javaType(v)} to ${type}`);
    return castNumber(type as NumType, v);
  }
  return type === 'def' || type === 'Object' ? v : checkReference(type, v);
}

function checkReference(type: string, v: Value): Value {
  const fits =
    type === 'boolean'
      ? typeof v === 'boolean'
      : v === null ||
        (type === 'String' ? typeof v === 'string' : type === 'Map' || type === 'HashMap' ? isMap(v) : isList(v));
  if (!fits) throw v === null ? nullPointer(`assign to ${type}`) : classCast(`cannot cast ${javaType(v)} to ${type}`);
  return v;
}
