import { isIP } from 'node:net';
import { sizeOf, spend, type Budget } from '../painless/budget.js';
import { isList, javaString, JNum, type Value } from '../painless/values.js';
import type { ProcessorConfig } from './config.js';
import type { IngestDocument } from './document.js';
import { ingestFailure } from './errors.js';

/**
 * The `convert` processor's types (the search engine's `mac` is not among them: refused when the pipeline is stored).
 */
const TYPES = ['integer', 'long', 'float', 'double', 'string', 'boolean', 'ip', 'auto'] as const;
type ConvertType = (typeof TYPES)[number];

const INTEGER = /^[+-]?\d+$/;
const HEX = /^-?0[xX][0-9a-fA-F]+$/;
const DECIMAL = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/;

function whole(value: Value, type: 'integer' | 'long'): JNum {
  const text = javaString(value);
  const n = HEX.test(text)
    ? text.startsWith('-')
      ? -parseInt(text.slice(3), 16)
      : parseInt(text.slice(2), 16)
    : INTEGER.test(text)
      ? Number(text)
      : NaN;
  const fits = type === 'integer' ? n >= -2_147_483_648 && n <= 2_147_483_647 : Number.isSafeInteger(n);
  if (Number.isNaN(n) || !fits) {
    if (type === 'long' && !Number.isNaN(n))
      throw ingestFailure(
        `unable to convert [${text}] to long: the emulator represents longs exactly only up to ±2^53`,
      );
    throw ingestFailure(`unable to convert [${text}] to ${type}`);
  }
  return new JNum(type === 'integer' ? 'int' : 'long', n);
}

function decimal(value: Value, type: 'float' | 'double'): JNum {
  const text = javaString(value);
  // Java's parseDouble ignores surrounding blanks and a type suffix.
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) throw ingestFailure(`unable to convert [${text}] to ${type}`);
  const n = Number(trimmed.replace(/[fFdD]$/, ''));
  if (!Number.isFinite(n)) throw ingestFailure(`unable to convert [${text}] to ${type}: ${trimmed} has no JSON form`);
  return type === 'float' ? new JNum('float', Math.fround(n)) : new JNum('double', n);
}

function convertOne(value: Value, type: ConvertType): Value {
  switch (type) {
    case 'integer':
    case 'long':
      return whole(value, type);
    case 'float':
    case 'double':
      return decimal(value, type);
    case 'string':
      return javaString(value);
    case 'boolean': {
      const text = javaString(value).toLowerCase();
      if (text === 'true' || text === 'false') return text === 'true';
      throw ingestFailure(`[${javaString(value)}] is not a boolean value, cannot convert to boolean`);
    }
    case 'ip': {
      const text = javaString(value);
      if (isIP(text) === 0) throw ingestFailure(`'${text}' is not a valid ip address`);
      return text;
    }
    case 'auto': {
      if (typeof value !== 'string') return value;
      for (const attempt of ['boolean', 'integer', 'long', 'float', 'double'] as const) {
        try {
          return convertOne(value, attempt);
        } catch {
          // the next type
        }
      }
      return value;
    }
  }
}

/** `convert`: `field`, `type`, `target_field`, `ignore_missing`; a list is converted element by element. */
export function convertProcessor(cfg: ProcessorConfig) {
  const field = cfg.requiredString('field');
  const type = cfg.requiredString('type');
  if (type === 'mac') cfg.fail('[type] mac is not supported by the emulator');
  if (!(TYPES as readonly string[]).includes(type))
    cfg.fail(`[type] type [${type}] not supported, cannot convert field.`);
  const target = cfg.string('target_field') ?? field;
  const ignoreMissing = cfg.boolean('ignore_missing', false);
  return (doc: IngestDocument, budget: Budget) => {
    const value = doc.getOptional(field, ignoreMissing);
    if (value === null) {
      if (ignoreMissing) return;
      throw ingestFailure(`Field [${field}] is null, cannot be converted to type [${type}]`);
    }
    spend(budget, sizeOf(value));
    const converted = isList(value)
      ? value.map((v) => convertOne(v, type as ConvertType))
      : convertOne(value, type as ConvertType);
    doc.set(target, converted);
  };
}
