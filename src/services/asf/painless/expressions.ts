import { ScriptCompileError } from './errors.js';
import { METHOD_NAMES, STATIC_ARITY, STATIC_CONSTANTS, STATIC_METHODS } from './methods.js';
import { TokenCursor } from './cursor.js';
import { numberLiteral } from './number-literal.js';
import type { Expr } from './syntax.js';
import { ASSIGN_OPS, CONSTRUCTIBLE, KEYWORDS, TYPES } from './words.js';

/** Expressions, by precedence from assignment down to a primary value and what follows it. */
export class ExpressionParser extends TokenCursor {
  expression(): Expr {
    return this.nest(this.token.at, () => this.assignment());
  }

  private assignment(): Expr {
    const target = this.conditional();
    if (this.token.kind === 'op' && ASSIGN_OPS.has(this.token.text)) {
      const op = this.tokens[this.pos++];
      if (target.k !== 'var' && target.k !== 'member' && target.k !== 'index')
        throw new ScriptCompileError('the left side of an assignment must be a variable, a field or an element', op.at);
      if (target.k === 'member' && target.safe)
        throw new ScriptCompileError('a null-safe field (?.) cannot be assigned', op.at);
      return { k: 'assign', at: op.at, op: op.text, target, value: this.expression() };
    }
    return target;
  }

  private conditional(): Expr {
    const test = this.binary(0);
    const at = this.token.at;
    if (this.accept('?:')) return { k: 'elvis', at, left: test, right: this.nest(at, () => this.conditional()) };
    if (!this.accept('?')) return test;
    const then = this.expression();
    this.expect(':');
    return { k: 'cond', at, test, then, else: this.nest(at, () => this.conditional()) };
  }

  private static readonly LEVELS = [
    ['||'],
    ['&&'],
    ['==', '!=', '===', '!=='],
    ['<', '<=', '>', '>='],
    ['+', '-'],
    ['*', '/', '%'],
  ];

  private binary(level: number): Expr {
    if (level === ExpressionParser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    while (this.token.kind === 'op' && ExpressionParser.LEVELS[level].includes(this.token.text)) {
      const op = this.tokens[this.pos++];
      if (op.text === '===' || op.text === '!==')
        throw new ScriptCompileError(
          `the identity operator ${op.text} is not supported by the emulator's script subset; use ` +
            `${op.text.slice(0, 2)}`,
          op.at,
        );
      left = { k: 'binary', at: op.at, op: op.text, left, right: this.nest(op.at, () => this.binary(level + 1)) };
    }
    return left;
  }

  private unary(): Expr {
    const at = this.token.at;
    if (this.is('!') || this.is('-') || this.is('+')) {
      const op = this.tokens[this.pos++].text;
      return { k: 'unary', at, op, arg: this.nest(at, () => this.unary()) };
    }
    if (this.is('++') || this.is('--')) {
      const op = this.tokens[this.pos++].text as '++' | '--';
      return {
        k: 'update',
        at,
        op,
        prefix: true,
        target: this.assignable(
          this.nest(at, () => this.unary()),
          at,
        ),
      };
    }
    if (this.is('(') && this.peek().kind === 'name' && TYPES.has(this.peek().text) && this.peek(2).text === ')') {
      const type = this.peek().text;
      this.pos += 3;
      return { k: 'cast', at, type, arg: this.nest(at, () => this.unary()) };
    }
    return this.postfix(this.primary());
  }

  private assignable(target: Expr, at: number): Expr {
    if (target.k !== 'var' && target.k !== 'member' && target.k !== 'index')
      throw new ScriptCompileError('++ and -- need a variable, a field or an element', at);
    return target;
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      const at = this.token.at;
      if (this.is('.') || this.is('?.')) {
        const safe = this.tokens[this.pos++].text === '?.';
        const name = this.name();
        if (this.accept('(')) {
          if (!METHOD_NAMES.has(name.text))
            throw new ScriptCompileError(
              `the method ${name.text}() is not supported by the emulator's script subset`,
              name.at,
            );
          expr = { k: 'call', at, obj: expr, name: name.text, args: this.arguments(), safe };
        } else {
          expr = { k: 'member', at, obj: expr, name: name.text, safe };
        }
      } else if (this.accept('[')) {
        const index = this.expression();
        this.expect(']');
        expr = { k: 'index', at, obj: expr, index };
      } else if (this.is('++') || this.is('--')) {
        const op = this.tokens[this.pos++].text as '++' | '--';
        expr = { k: 'update', at, op, prefix: false, target: this.assignable(expr, at) };
      } else {
        return expr;
      }
    }
  }

  private arguments(): Expr[] {
    const args: Expr[] = [];
    if (this.accept(')')) return args;
    do args.push(this.expression());
    while (this.accept(','));
    this.expect(')');
    return args;
  }

  private primary(): Expr {
    const token = this.token;
    const at = token.at;
    if (token.kind === 'number') {
      this.pos++;
      return { k: 'lit', at, value: numberLiteral(token) };
    }
    if (token.kind === 'string') {
      this.pos++;
      return { k: 'lit', at, value: token.text };
    }
    if (this.accept('(')) {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (this.accept('[')) return this.collectionLiteral(at);
    if (token.kind !== 'name' || (KEYWORDS.has(token.text) && !STATIC_METHODS.has(token.text)))
      throw new ScriptCompileError(`unexpected ${this.describe(token)}`, at);
    this.refuseWord(token);
    this.pos++;
    if (token.text === 'true' || token.text === 'false') return { k: 'lit', at, value: token.text === 'true' };
    if (token.text === 'null') return { k: 'lit', at, value: null };
    if (token.text === 'new') {
      const cls = this.name();
      if (!CONSTRUCTIBLE.has(cls.text))
        throw new ScriptCompileError(
          `new ${cls.text}() is not supported by the emulator's script subset (only ArrayList and HashMap)`,
          cls.at,
        );
      this.expect('(');
      const args = this.arguments();
      if (args.length > 1) throw new ScriptCompileError(`new ${cls.text}() takes at most one argument`, cls.at);
      return { k: 'new', at, cls: cls.text, args };
    }
    if (STATIC_METHODS.has(token.text) && this.is('.')) {
      this.pos++;
      const member = this.name();
      const qualified = `${token.text}.${member.text}`;
      if (this.accept('(')) {
        if (!STATIC_METHODS.get(token.text)!.has(member.text))
          throw new ScriptCompileError(`${qualified}() is not supported by the emulator's script subset`, member.at);
        const args = this.arguments();
        if (args.length !== STATIC_ARITY[qualified])
          throw new ScriptCompileError(
            `${qualified}() takes ${STATIC_ARITY[qualified]} argument(s) in the emulator's script subset; got ` +
              `${args.length}`,
            member.at,
          );
        return { k: 'static', at, cls: token.text, name: member.text, args };
      }
      if (!(qualified in STATIC_CONSTANTS))
        throw new ScriptCompileError(`${qualified} is not supported by the emulator's script subset`, member.at);
      return { k: 'static', at, cls: token.text, name: member.text, args: null };
    }
    if (!this.isDeclared(token.text)) throw new ScriptCompileError(`cannot resolve symbol [${token.text}]`, at);
    return { k: 'var', at, name: token.text };
  }

  /** `[1, 2]` a list, `['a': 1]` a map, `[:]` an empty map. */
  private collectionLiteral(at: number): Expr {
    if (this.accept(']')) return { k: 'list', at, items: [] };
    if (this.accept(':')) {
      this.expect(']');
      return { k: 'map', at, entries: [] };
    }
    const first = this.expression();
    if (this.accept(':')) {
      const entries: Array<[Expr, Expr]> = [[first, this.expression()]];
      while (this.accept(',')) {
        const key = this.expression();
        this.expect(':');
        entries.push([key, this.expression()]);
      }
      this.expect(']');
      return { k: 'map', at, entries };
    }
    const items = [first];
    while (this.accept(',')) items.push(this.expression());
    this.expect(']');
    return { k: 'list', at, items };
  }
}
