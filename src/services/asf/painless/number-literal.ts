import { ScriptCompileError } from './errors.js';
import type { Token } from './tokenizer.js';
import { double, int, JNum } from './values.js';

/** A number as Java reads it: int, long (L), float (F) or double; hex and octal integers; range-checked. */
export function numberLiteral(token: Token): JNum {
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
