import { checkTime, limitError, LIMITS, spend, stepper, type Budget } from './budget.js';
import { classCast, illegalArgument, nullPointer, ScriptRuntimeError } from './errors.js';
import { callMethod, callStatic, STATIC_CONSTANTS, type Charge } from './methods.js';
import type { Expr, Stmt } from './syntax.js';
import { cast, coerce, defaultOf } from './types.js';
import {
  arithmetic,
  asBoolean,
  compareNumbers,
  int,
  isList,
  isMap,
  isNum,
  javaString,
  javaType,
  mapKey,
  ofType,
  valuesEqual,
  type Value,
} from './values.js';

export interface RunInput {
  ctx: Value;
  params: Value;
  budget: Budget;
  /** An `if` condition sees the document but may not change it. */
  readOnly?: boolean;
}

interface Slot {
  type: string;
  value: Value;
}

type Flow = undefined | 'break' | 'continue' | { ret: Value };

const MUTATING = new Set(['put', 'remove', 'clear', 'add', 'addAll', 'set']);

function containers(root: Value, into = new Set<unknown>()): Set<unknown> {
  if ((isMap(root) || isList(root)) && !into.has(root)) {
    into.add(root);
    for (const v of isMap(root) ? root.values() : root) containers(v, into);
  }
  return into;
}

/** Walks the syntax tree. No host code is reachable: values are data, calls go through the listed methods only. */
class Evaluator {
  /** Block scopes; null until the block declares a variable (most blocks never do). */
  private scopes: Array<Map<string, Slot> | null>;
  private steps = 0;
  private loops = 0;
  private readonly frozen: Set<unknown>;
  private readonly charge: Charge;

  constructor(private readonly input: RunInput) {
    this.scopes = [
      new Map([
        ['ctx', { type: 'Map', value: input.ctx }],
        ['params', { type: 'Map', value: input.params }],
      ]),
    ];
    this.frozen = input.readOnly ? containers(input.ctx) : new Set();
    this.charge = Object.assign((units: number) => spend(input.budget, units), { step: stepper(input.budget) });
  }

  run(program: Stmt[]): Value {
    for (const [i, stmt] of program.entries()) {
      if (i === program.length - 1 && stmt.k === 'expr') return this.expr(stmt.expr);
      const flow = this.exec(stmt);
      if (typeof flow === 'object') return flow.ret;
      if (flow) throw illegalArgument(`${flow} outside of a loop`);
    }
    return null;
  }

  private tick(): void {
    if ((++this.steps & 15) === 0) checkTime(this.input.budget);
  }

  private loopTick(): void {
    if (++this.loops > LIMITS.loopIterations)
      throw limitError('The maximum number of statements that can be executed in a loop has been reached.');
  }

  private block<T>(run: () => T): T {
    this.scopes.push(null);
    try {
      return run();
    } finally {
      this.scopes.pop();
    }
  }

  private slot(name: string): Slot {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const slot = this.scopes[i]?.get(name);
      if (slot) return slot;
    }
    throw new Error(`unresolved variable ${name}`);
  }

  private declare(name: string, slot: Slot): void {
    const top = this.scopes.length - 1;
    (this.scopes[top] ??= new Map()).set(name, slot);
  }

  private exec(stmt: Stmt): Flow {
    this.tick();
    switch (stmt.k) {
      case 'empty':
        return undefined;
      case 'expr':
        this.expr(stmt.expr);
        return undefined;
      case 'decl':
        for (const v of stmt.vars) {
          const value = v.init ? coerce(stmt.type, this.expr(v.init)) : defaultOf(stmt.type);
          this.declare(v.name, { type: stmt.type, value });
        }
        return undefined;
      case 'block':
        this.scopes.push(null);
        try {
          for (const s of stmt.body) {
            const flow = this.exec(s);
            if (flow) return flow;
          }
          return undefined;
        } finally {
          this.scopes.pop();
        }
      case 'if':
        // Bodies run in the enclosing scope: the parser already gave each its own, and Java allows no declaration
        // as a bare body, so a `{ ... }` body opens the only scope it needs.
        if (asBoolean(this.expr(stmt.test), 'an if condition')) return this.exec(stmt.then);
        return stmt.else ? this.exec(stmt.else) : undefined;
      case 'while':
        while (asBoolean(this.expr(stmt.test), 'a while condition')) {
          this.loopTick();
          const flow = this.exec(stmt.body);
          if (flow === 'break') break;
          if (typeof flow === 'object') return flow;
        }
        return undefined;
      case 'for':
        return this.block(() => {
          if (stmt.init) this.exec(stmt.init);
          while (!stmt.test || asBoolean(this.expr(stmt.test), 'a for condition')) {
            this.loopTick();
            const flow = this.exec(stmt.body);
            if (flow === 'break') break;
            if (typeof flow === 'object') return flow;
            for (const u of stmt.update) this.expr(u);
          }
          return undefined;
        });
      case 'foreach':
        return this.foreach(stmt);
      case 'return':
        return { ret: stmt.value ? this.expr(stmt.value) : null };
      case 'break':
      case 'continue':
        return stmt.k;
    }
  }

  private foreach(stmt: Extract<Stmt, { k: 'foreach' }>): Flow {
    const list = this.expr(stmt.iterable);
    if (list === null) throw nullPointer('iterate over the elements');
    if (!isList(list))
      throw illegalArgument(`cannot iterate over ${javaType(list)}; use keySet() or values() for a map`);
    const length = list.length;
    for (const item of list) {
      this.loopTick();
      const flow = this.block(() => {
        this.declare(stmt.name, { type: stmt.type, value: coerce(stmt.type, item) });
        return this.exec(stmt.body);
      });
      if (list.length !== length)
        throw new ScriptRuntimeError(
          'concurrent_modification_exception',
          'the list changed while a for loop went over it',
        );
      if (flow === 'break') break;
      if (typeof flow === 'object') return flow;
    }
    return undefined;
  }

  private expr(e: Expr): Value {
    this.tick();
    switch (e.k) {
      case 'lit':
        return e.value;
      case 'var':
        return this.slot(e.name).value;
      case 'member': {
        const obj = this.expr(e.obj);
        if (obj === null) {
          if (e.safe) return null;
          throw nullPointer(`read the field [${e.name}]`);
        }
        if (!isMap(obj)) throw illegalArgument(`dynamic getter [${javaType(obj)}, ${e.name}] not found`);
        return obj.get(e.name) ?? null;
      }
      case 'index':
        return this.readIndex(this.expr(e.obj), this.expr(e.index));
      case 'call': {
        const obj = this.expr(e.obj);
        if (obj === null && e.safe) return null;
        if (this.frozen.has(obj) && MUTATING.has(e.name)) throw readOnlyError();
        return callMethod(
          obj,
          e.name,
          e.args.map((a) => this.expr(a)),
          this.charge,
        );
      }
      case 'static':
        return e.args === null
          ? STATIC_CONSTANTS[`${e.cls}.${e.name}`]
          : callStatic(
              e.cls,
              e.name,
              e.args.map((a) => this.expr(a)),
              this.charge,
            );
      case 'new': {
        const arg = e.args[0] === undefined ? undefined : this.expr(e.args[0]);
        if (e.cls === 'ArrayList') {
          if (arg === undefined || isNum(arg)) return [];
          if (!isList(arg)) throw illegalArgument(`new ArrayList() takes a list; got ${javaType(arg)}`);
          this.charge(arg.length);
          return [...arg];
        }
        if (arg === undefined || isNum(arg)) return new Map();
        if (!isMap(arg)) throw illegalArgument(`new HashMap() takes a map; got ${javaType(arg)}`);
        this.charge(arg.size);
        return new Map(arg);
      }
      case 'list': {
        this.charge(e.items.length);
        return e.items.map((i) => this.expr(i));
      }
      case 'map': {
        this.charge(e.entries.length);
        return new Map(e.entries.map(([k, v]) => [mapKey(this.expr(k)), this.expr(v)]));
      }
      case 'unary':
        return this.unary(e.op, this.expr(e.arg));
      case 'binary':
        return this.binary(e.op, e.left, e.right);
      case 'cond':
        return asBoolean(this.expr(e.test), 'a ?: condition') ? this.expr(e.then) : this.expr(e.else);
      case 'elvis': {
        const left = this.expr(e.left);
        return left !== null ? left : this.expr(e.right);
      }
      case 'cast':
        return cast(e.type, this.expr(e.arg));
      case 'assign': {
        if (e.op === '=') return this.write(e.target, this.expr(e.value), false);
        const current = this.expr(e.target);
        return this.write(e.target, this.operate(e.op.slice(0, -1), current, this.expr(e.value)), true);
      }
      case 'update': {
        const current = this.expr(e.target);
        if (!isNum(current))
          throw current === null
            ? nullPointer(`apply ${e.op}`)
            : classCast(`cannot apply [${e.op}] to ${javaType(current)}`);
        const next = arithmetic(e.op === '++' ? '+' : '-', current, int(1));
        this.write(e.target, ofType(current.type, next.value), true);
        return e.prefix ? next : current;
      }
    }
  }

  private readIndex(obj: Value, index: Value): Value {
    if (obj === null) throw nullPointer('read an element');
    if (isMap(obj)) return obj.get(mapKey(index)) ?? null;
    if (isList(obj)) return obj[listPosition(obj, index)];
    throw illegalArgument(`cannot index into ${javaType(obj)}`);
  }

  /** Assigns; `compound` casts back to a typed variable's type, as Java's `i += 1.5` does. */
  private write(target: Expr, value: Value, compound: boolean): Value {
    if (target.k === 'var') {
      const slot = this.slot(target.name);
      slot.value = compound ? cast(slot.type, value) : coerce(slot.type, value);
      return slot.value;
    }
    if (target.k !== 'member' && target.k !== 'index') throw new Error('not assignable');
    const obj = this.expr(target.obj);
    if (obj === null) throw nullPointer('set a field or an element');
    if (this.frozen.has(obj)) throw readOnlyError();
    if (isMap(obj)) {
      const key = target.k === 'member' ? target.name : mapKey(this.expr(target.index));
      if (!obj.has(key)) this.charge(key.length + 1);
      obj.set(key, value);
    } else if (isList(obj) && target.k === 'index') {
      obj[listPosition(obj, this.expr(target.index))] = value;
    } else {
      throw illegalArgument(
        target.k === 'member'
          ? `dynamic setter [${javaType(obj)}, ${target.name}] not found`
          : `cannot index into ${javaType(obj)}`,
      );
    }
    return value;
  }

  private unary(op: string, v: Value): Value {
    if (op === '!') return !asBoolean(v, 'a ! operator');
    if (v === null) throw nullPointer(`apply unary ${op}`);
    if (!isNum(v)) throw classCast(`cannot apply [${op}] to ${javaType(v)}`);
    return op === '-' ? ofType(v.type, -v.value) : v;
  }

  private binary(op: string, left: Expr, right: Expr): Value {
    if (op === '&&') return asBoolean(this.expr(left), 'a && operand') && asBoolean(this.expr(right), 'a && operand');
    if (op === '||') return asBoolean(this.expr(left), 'a || operand') || asBoolean(this.expr(right), 'a || operand');
    return this.operate(op, this.expr(left), this.expr(right));
  }

  private operate(op: string, a: Value, b: Value): Value {
    switch (op) {
      case '==':
        return valuesEqual(a, b, false, this.charge.step);
      case '!=':
        return !valuesEqual(a, b, false, this.charge.step);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return compareNumbers(op, a, b);
    }
    if (op === '+' && (typeof a === 'string' || typeof b === 'string')) {
      const text = javaString(a) + javaString(b);
      if (text.length > LIMITS.stringLength)
        throw limitError(`a string grew longer than ${LIMITS.stringLength} characters, the emulator's limit`);
      this.charge(text.length);
      return text;
    }
    if (a === null || b === null) throw nullPointer(`apply [${op}]`);
    if (!isNum(a) || !isNum(b)) throw classCast(`cannot apply [${op}] to types [${javaType(a)}] and [${javaType(b)}]`);
    return arithmetic(op, a, b);
  }
}

function readOnlyError(): ScriptRuntimeError {
  return new ScriptRuntimeError(
    'unsupported_operation_exception',
    'an if condition may read the document but not change it',
  );
}

function listPosition(list: Value[], index: Value): number {
  if (!isNum(index) || index.type !== 'int') throw classCast(`a list index must be an int; got ${javaType(index)}`);
  const i = index.value < 0 ? list.length + index.value : index.value;
  if (i < 0 || i >= list.length)
    throw new ScriptRuntimeError(
      'index_out_of_bounds_exception',
      `Index ${index.value} out of bounds for length ${list.length}`,
    );
  return i;
}

/** Runs a parsed script on a document's `ctx`; answers the script's value (its `return`, or its last expression). */
export function runScript(program: Stmt[], input: RunInput): Value {
  try {
    return new Evaluator(input).run(program);
  } catch (err) {
    // A JavaScript engine limit (a value nested too deep to copy) is reported as the script's failure, not a crash.
    if (err instanceof RangeError) throw new ScriptRuntimeError('stack_overflow_error', err.message);
    throw err;
  }
}
