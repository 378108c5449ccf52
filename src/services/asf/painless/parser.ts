import { ScriptCompileError } from './errors.js';
import { ExpressionParser } from './expressions.js';
import { tokenize } from './tokenizer.js';
import type { Expr, Stmt } from './syntax.js';
import { TYPES } from './words.js';

export type { Expr, Stmt };

/** Statements: blocks, declarations, if, loops, return; expressions are parsed by the class it extends. */
class Parser extends ExpressionParser {
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
}

/** Parses a script: a syntax error or a feature outside the subset is a ScriptCompileError naming it. */
export function parseScript(source: string): Stmt[] {
  return new Parser(tokenize(source)).program();
}
