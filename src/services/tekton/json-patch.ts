import { isDeepStrictEqual } from 'node:util';
import jsonPatch, { type Operation } from 'fast-json-patch';
import { isPlainObject } from '../../store/index.js';

/**
 * A JSON value whose objects have no prototype: a key of the document (`__proto__`, `constructor`, `toString`) is
 * its own property or missing, never something Object.prototype answers. JSON.parse's recursion bounds the depth
 * as the request body's parse did.
 */
export const prototypeFree = (value: unknown): unknown =>
  value === undefined
    ? undefined
    : JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
        isPlainObject(v) ? Object.assign(Object.create(null) as object, v) : v,
      );

/** RFC 6901: the value a pointer names in a document of prototype-free objects, or `missing` when none. */
export function valueAt(document: unknown, pointer: string): { value: unknown } | 'missing' | 'invalid' {
  if (pointer === '') return { value: document };
  if (!pointer.startsWith('/')) return 'invalid';
  let at = document;
  for (const escaped of pointer.slice(1).split('/')) {
    const key = escaped.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= at.length) return 'missing';
      at = at[Number(key)];
    } else if (isPlainObject(at) && Object.hasOwn(at, key)) {
      at = at[key];
    } else return 'missing';
  }
  return { value: at };
}

/** Why an operation failed, for the caller to answer: the library's own error names, or its TypeError. */
export class PatchStepError extends Error {
  constructor(
    readonly kind: 'missing' | 'test-failed' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

/**
 * One RFC 6902 operation on a prototype-free document (changed in place), answering the next one. `add`, `remove`
 * and `replace` are the library's (which finds only own properties in such a document); `copy`, `move` and `test`
 * read their pointer here, so that `/__proto__` is a key like any other and the library's refusal of it never applies.
 */
export function applyStep(document: unknown, operation: Operation, index: number): unknown {
  const { op } = operation;
  if (op === 'copy' || op === 'move' || op === 'test') {
    const pointer = op === 'test' ? operation.path : (operation as { from?: unknown }).from;
    if (typeof pointer !== 'string') throw new PatchStepError('invalid', `"from" is required and must be a string`);
    if (op === 'test' && !Object.hasOwn(operation, 'value')) throw new PatchStepError('invalid', '"value" is required');
    const found = valueAt(document, pointer);
    if (found === 'invalid') throw new PatchStepError('invalid', `${pointer} is not a JSON pointer`);
    if (op === 'test') {
      const same = found !== 'missing' && isDeepStrictEqual(found.value, prototypeFree(operation.value));
      if (!same) throw new PatchStepError('test-failed', `the value at ${pointer} is not the one tested`);
      return document;
    }
    if (found === 'missing') throw new PatchStepError('missing', `there is nothing at ${pointer} to ${op}`);
    if (op === 'move' && operation.path.startsWith(`${pointer}/`))
      throw new PatchStepError('invalid', `a value cannot be moved into itself (${pointer} into ${operation.path})`);
    const value = prototypeFree(found.value);
    const removed =
      op === 'move' && pointer !== operation.path
        ? applyStep(document, { op: 'remove', path: pointer }, index)
        : document;
    return libraryStep(removed, { op: 'add', path: operation.path, value }, index);
  }
  // Only the value the operation brings is made prototype-free (the document already is): never the whole document.
  const step = Object.hasOwn(operation, 'value')
    ? { ...operation, value: prototypeFree((operation as { value?: unknown }).value) }
    : operation;
  return libraryStep(document, step as Operation, index);
}

/** The library's operation, validated, in place, with its `__proto__` ban off: nothing here has a prototype. */
const libraryStep = (document: unknown, operation: Operation, index: number): unknown =>
  jsonPatch.applyOperation(document, operation, true, true, false, index).newDocument;
