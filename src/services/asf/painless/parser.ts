import { ScriptCompileError } from './errors.js';
import { METHOD_NAMES, STATIC_ARITY, STATIC_CONSTANTS, STATIC_METHODS } from './methods.js';
import { tokenize, type Token } from './tokenizer.js';
import type { Expr, Stmt } from './syntax.js';
import { double, int, JNum } from './values.js';

export type { Expr, Stmt };

/** Declared types: `def x`, `int i`, `String s`, ... (no generics, no arrays). */
export const TYPES = new Set([
  'def',
  'int',
  'long',
  'float',
  'double',
  'boolean',
  'String',
  'Map',
  'List',
  'Object',
  'HashMap',
  'ArrayList',
]);
const CONSTRUCTIBLE = new Set(['ArrayList', 'HashMap']);
/** Words of the language the subset leaves out: refused by name. */
const UNSUPPORTED_WORDS = new Set([
  'do',
  'try',
  'catch',
  'finally',
  'throw',
  'switch',
  'case',
  'instanceof',
  'this',
  'super',
  'class',
  'import',
  'static',
  'void',
  'short',
  'byte',
  'char',
  'synchronized',
  'function',
]);
/** Words that start statements: never a value. */
const KEYWORDS = new Set(['if', 'else', 'while', 'for', 'return', 'break', 'continue', 'in', ...TYPES]);
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=']);
const MAX_DEPTH = 200;

class Parser {
  private pos = 0;
  private depth = 0;
  private scopes: Array<Set<string>> = [new Set(['ctx', 'params'])];

  constructor(private readonly tokens: Token[]) {}

  private get token(): Token {
    return this.tokens[this.pos];
  }

  private peek(offset = 1): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  private is(text: string): boolean {
    return (this.token.kind === 'op' || this.token.kind === 'name') && this.token.text === text;
  }

  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.pos++;
    return true;
  }

  private expect(text: string): Token {
    if (!this.is(text))
      throw new ScriptCompileError(`expected ${text} but found ${this.describe(this.token)}`, this.token.at);
    return this.tokens[this.pos++];
  }

  private describe(token: Token): string {
    return token.kind === 'eof' ? 'the end of the script' : `"${token.text}"`;
  }

  private name(): Token {
    const token = this.token;
    if (token.kind !== 'name')
      throw new ScriptCompileError(`expected a name but found ${this.describe(token)}`, token.at);
    this.refuseWord(token);
    this.pos++;
    return token;
  }

  private refuseWord(token: Token): void {
    if (UNSUPPORTED_WORDS.has(token.text))
      throw new ScriptCompileError(`"${token.text}" is not supported by the emulator's script subset`, token.at);
  }

  private nest<T>(at: number, parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ScriptCompileError(`the script nests deeper than ${MAX_DEPTH} levels`, at);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private declare(name: string, at: number): void {
    const scope = this.scopes[this.scopes.length - 1];
    if (this.scopes.some((s) => s.has(name))) throw new ScriptCompileError(`variable [${name}] is already defined`, at);
    scope.add(name);
  }

  private scoped<T>(parse: () => T): T {
    this.scopes.push(new Set());
    try {
      return parse();
    } finally {
      this.scopes.pop();
    }
  }

  program(): Stmt[] {
    const body: Stmt[] = [];
    while (this.token.kind !== 'eof') body.push(this.statement());
    return body;
  }

  /** A statement's `;` may be left out before `}` and at the end of the script, as Painless allows. */
  private endOfStatement(): void {
    if (this.accept(';') || this.is('}') || this.token.kind === 'eof') return;
    throw new ScriptCompileError(`expected ; but found ${this.describe(this.token)}`, this.token.at);
  }

  private isDeclaration(): boolean {
    return this.token.kind === 'name' && TYPES.has(this.token.text) && this.peek().kind === 'name';
  }

  private statement(): Stmt {
    const at = this.token.at;
    return this.nest(at, (): Stmt => {
      if (this.token.kind === 'name') this.refuseWord(this.token);
      if (this.accept(';')) return { k: 'empty', at };
      if (this.accept('{')) {
        return this.scoped(() => {
          const body: Stmt[] = [];
          while (!this.accept('}')) {
            if (this.token.kind === 'eof') throw new ScriptCompileError('a block is not closed with }', at);
            body.push(this.statement());
          }
          return { k: 'block', at, body };
        });
      }
      if (this.accept('if')) {
        this.expect('(');
        const test = this.expression();
        this.expect(')');
        const then = this.scoped(() => this.statement());
        const otherwise = this.accept('else') ? this.scoped(() => this.statement()) : undefined;
        return { k: 'if', at, test, then, else: otherwise };
      }
      if (this.accept('while')) {
        this.expect('(');
        const test = this.expression();
        this.expect(')');
        return { k: 'while', at, test, body: this.scoped(() => this.statement()) };
      }
      if (this.accept('for')) return this.scoped(() => this.forStatement(at));
      if (this.accept('return')) {
        const value = this.is(';') || this.is('}') || this.token.kind === 'eof' ? undefined : this.expression();
        this.endOfStatement();
        return { k: 'return', at, value };
      }
      if (this.is('break') || this.is('continue')) {
        const k = this.tokens[this.pos++].text as 'break' | 'continue';
        this.endOfStatement();
        return { k, at };
      }
      if (this.isDeclaration()) {
        const decl = this.declaration();
        this.endOfStatement();
        return decl;
      }
      const expr = this.expression();
      this.endOfStatement();
      return { k: 'expr', at, expr };
    });
  }

  private declaration(): Stmt {
    const at = this.token.at;
    const type = this.tokens[this.pos++].text;
    const vars: Array<{ name: string; init?: Expr }> = [];
    do {
      const name = this.name();
      if (this.is('('))
        throw new ScriptCompileError("defining functions is not supported by the emulator's script subset", name.at);
      const init = this.accept('=') ? this.expression() : undefined;
      this.declare(name.text, name.at);
      vars.push({ name: name.text, init });
    } while (this.accept(','));
    return { k: 'decl', at, type, vars };
  }

  private forStatement(at: number): Stmt {
    this.expect('(');
    if (
      this.token.kind === 'name' &&
      TYPES.has(this.token.text) &&
      this.peek().kind === 'name' &&
      (this.peek(2).text === ':' || this.peek(2).text === 'in')
    ) {
      const type = this.tokens[this.pos++].text;
      const name = this.name();
      this.pos++;
      const iterable = this.expression();
      this.expect(')');
      this.declare(name.text, name.at);
      return { k: 'foreach', at, type, name: name.text, iterable, body: this.scoped(() => this.statement()) };
    }
    let init: Stmt | undefined;
    if (!this.is(';'))
      init = this.isDeclaration() ? this.declaration() : { k: 'expr', at: this.token.at, expr: this.expression() };
    this.expect(';');
    const test = this.is(';') ? undefined : this.expression();
    this.expect(';');
    const update: Expr[] = [];
    if (!this.is(')')) {
      do update.push(this.expression());
      while (this.accept(','));
    }
    this.expect(')');
    return { k: 'for', at, init, test, update, body: this.scoped(() => this.statement()) };
  }

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
    if (level === Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    while (this.token.kind === 'op' && Parser.LEVELS[level].includes(this.token.text)) {
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
    if (!this.scopes.some((s) => s.has(token.text)))
      throw new ScriptCompileError(`cannot resolve symbol [${token.text}]`, at);
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

function numberLiteral(token: Token): JNum {
  const text = token.text;
  const suffix =
    /[lLfFdD]$/.test(text) && !/^0[xX]/.test(text) ? text.at(-1)!.toLowerCase() : /[lL]$/.test(text) ? 'l' : '';
  const digits = suffix ? text.slice(0, -1) : text;
  const integral = /^(0[xX][0-9a-fA-F]+|0[0-7]+|0|[1-9]\d*)$/.test(digits);
  if (integral && (suffix === '' || suffix === 'l')) {
    const value = /^0[xX]/.test(digits)
      ? parseInt(digits.slice(2), 16)
      : /^0[0-7]/.test(digits)
        ? parseInt(digits.slice(1), 8)
        : Number(digits);
    if (suffix === 'l') {
      if (!Number.isSafeInteger(value))
        throw new ScriptCompileError(
          `the long ${text} is beyond ±2^53, which the emulator does not represent exactly`,
          token.at,
        );
      return new JNum('long', value);
    }
    if (value > 2_147_483_647)
      throw new ScriptCompileError(`the int ${text} is out of range (write ${text}L for a long)`, token.at);
    return int(value);
  }
  if (suffix === 'l' || /^0\d/.test(digits)) throw new ScriptCompileError(`malformed number ${text}`, token.at);
  const value = Number(digits);
  return suffix === 'f' ? new JNum('float', Math.fround(value)) : double(value);
}

/** Parses a script: a syntax error or a feature outside the subset is a ScriptCompileError naming it. */
export function parseScript(source: string): Stmt[] {
  return new Parser(tokenize(source)).program();
}
