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
export const CONSTRUCTIBLE = new Set(['ArrayList', 'HashMap']);
/** Words of the language the subset leaves out: refused by name. */
export const UNSUPPORTED_WORDS = new Set([
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
export const KEYWORDS = new Set(['if', 'else', 'while', 'for', 'return', 'break', 'continue', 'in', ...TYPES]);
export const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=']);
