import { ScriptCompileError } from './errors.js';

/**
 * The tokens of the script subset (a part of the search engine's Painless language): literals, names and the
 * operators the parser knows. Anything else is refused here, naming what it met.
 */
export type TokenKind = 'number' | 'string' | 'name' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  /** Offset in the source, for messages. */
  at: number;
}

/** The longest script source taken (the search engine's own default limit for a script is 65,535 bytes). */
export const MAX_SOURCE_LENGTH = 65_535;

// Longest first, so that `===` is not read as `==` `=`.
const OPERATORS = [
  '===',
  '!==',
  '?.',
  '?:',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ';',
  ',',
  '.',
  '?',
  ':',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
];
/** Operators of the language that the subset leaves out: refused by name rather than misread. */
const UNSUPPORTED = [
  '>>>=',
  '<<=',
  '>>=',
  '>>>',
  '<<',
  '>>',
  '->',
  '::',
  '&=',
  '|=',
  '^=',
  '=~',
  '==~',
  '&',
  '|',
  '^',
  '~',
  '@',
  '#',
  '$',
  '`',
  '\\',
];

/** Painless's literals: hex, octal (`022` is 18), decimal with an optional fraction and exponent, a type suffix. */
const NUMBER = /^(?:0[xX][0-9a-fA-F]+[lL]?|0[0-7]+[lL]?|(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?[lLfFdD]?)/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Painless strings know two escapes: `\\` and the string's own quote (`\'` or `\"`); a line break may be literal. */
function readString(source: string, start: number): { text: string; end: number } {
  const quote = source[start];
  let text = '';
  let i = start + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] === '\\') {
      const next = source[i + 1];
      if (next !== '\\' && next !== quote) {
        throw new ScriptCompileError(
          `the escape \\${next ?? ''} is not one of Painless's (\\\\ and \\${quote}); write the character itself`,
          i,
        );
      }
      text += next;
      i += 2;
      continue;
    }
    text += source[i++];
  }
  if (i >= source.length) throw new ScriptCompileError('a string literal is not closed', start);
  return { text, end: i + 1 };
}

export function tokenize(source: string): Token[] {
  if (source.length > MAX_SOURCE_LENGTH)
    throw new ScriptCompileError(`the script is longer than ${MAX_SOURCE_LENGTH} characters`, 0);
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
      continue;
    }
    if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) throw new ScriptCompileError('a comment is not closed', i);
      i = end + 2;
      continue;
    }
    const rest = source.slice(i, i + 64);
    if (c === "'" || c === '"') {
      const { text, end } = readString(source, i);
      tokens.push({ kind: 'string', text, at: i });
      i = end;
      continue;
    }
    const number = /^[0-9]/.test(c) ? NUMBER.exec(rest) : null;
    if (number) {
      if (/^[A-Za-z0-9_]/.test(source.slice(i + number[0].length, i + number[0].length + 1)))
        throw new ScriptCompileError(`malformed number ${number[0]}${source[i + number[0].length]}`, i);
      tokens.push({ kind: 'number', text: number[0], at: i });
      i += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      const full = NAME.exec(source.slice(i))![0];
      tokens.push({ kind: 'name', text: full, at: i });
      i += full.length;
      continue;
    }
    const unsupported = UNSUPPORTED.find(
      (op) => source.startsWith(op, i) && !OPERATORS.some((o) => o.length >= op.length && source.startsWith(o, i)),
    );
    if (unsupported)
      throw new ScriptCompileError(`the operator ${unsupported} is not supported by the emulator's script subset`, i);
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (!op) throw new ScriptCompileError(`unexpected character ${JSON.stringify(c)}`, i);
    tokens.push({ kind: 'op', text: op, at: i });
    i += op.length;
  }
  tokens.push({ kind: 'eof', text: '', at: source.length });
  return tokens;
}
