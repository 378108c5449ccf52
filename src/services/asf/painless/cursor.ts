import { ScriptCompileError } from './errors.js';
import type { Token } from './tokenizer.js';
import { UNSUPPORTED_WORDS } from './words.js';

const MAX_DEPTH = 200;

/** The parser's place in the tokens, the nesting it allows, and the variables each scope declares. */
export class TokenCursor {
  protected pos = 0;
  private depth = 0;
  private scopes: Array<Set<string>> = [new Set(['ctx', 'params'])];

  constructor(protected readonly tokens: Token[]) {}

  protected get token(): Token {
    return this.tokens[this.pos];
  }

  protected peek(offset = 1): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  protected is(text: string): boolean {
    return (this.token.kind === 'op' || this.token.kind === 'name') && this.token.text === text;
  }

  protected accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.pos++;
    return true;
  }

  protected expect(text: string): Token {
    if (!this.is(text))
      throw new ScriptCompileError(`expected ${text} but found ${this.describe(this.token)}`, this.token.at);
    return this.tokens[this.pos++];
  }

  protected describe(token: Token): string {
    return token.kind === 'eof' ? 'the end of the script' : `"${token.text}"`;
  }

  protected name(): Token {
    const token = this.token;
    if (token.kind !== 'name')
      throw new ScriptCompileError(`expected a name but found ${this.describe(token)}`, token.at);
    this.refuseWord(token);
    this.pos++;
    return token;
  }

  protected refuseWord(token: Token): void {
    if (UNSUPPORTED_WORDS.has(token.text))
      throw new ScriptCompileError(`"${token.text}" is not supported by the emulator's script subset`, token.at);
  }

  protected nest<T>(at: number, parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ScriptCompileError(`the script nests deeper than ${MAX_DEPTH} levels`, at);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  protected declare(name: string, at: number): void {
    const scope = this.scopes[this.scopes.length - 1];
    if (this.scopes.some((s) => s.has(name))) throw new ScriptCompileError(`variable [${name}] is already defined`, at);
    scope.add(name);
  }

  protected scoped<T>(parse: () => T): T {
    this.scopes.push(new Set());
    try {
      return parse();
    } finally {
      this.scopes.pop();
    }
  }

  protected isDeclared(name: string): boolean {
    return this.scopes.some((s) => s.has(name));
  }
}
