import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../contract.js';
import { isPlainObject } from '../store/json-values.js';

/*
 * ajv (a CommonJS tree that takes tens of milliseconds to load) is loaded by the first schema compiled, not when
 * this module is imported: a start on an existing state or on the package's own fixtures compiles none. It is
 * required synchronously (ajv is CommonJS), so that compiling stays synchronous.
 */
const require = createRequire(import.meta.url);

/** A draft-07 ajv without formats (state documents' record checks). */
export function newAjv(options: Options): Ajv {
  const { Ajv: Draft07 } = require('ajv') as { Ajv: typeof Ajv };
  return new Draft07(options);
}

function withFormats<T extends Ajv>(instance: T): T {
  (require('ajv-formats') as (a: Ajv) => void)(instance);
  return instance;
}

/**
 * One ajv for request bodies, fixtures and imports, so that one rule reads the same everywhere. These schemas are
 * ours: they are not checked against the meta-schema here (compiling it cost every start tens of milliseconds), but
 * once in the tests (test/schemas.test.ts). Nor is the generated code optimised: that pass costs more at start
 * (the fixture sections are compiled at every first start) than it saves a validation (a few nanoseconds).
 * `useDefaults` fills in what a collection's record schema defaults (an imported endpoint without metadata gets `{}`);
 * request bodies and fixture sections declare no defaults, so it changes nothing for them.
 */
let shared: Ajv | undefined;
const ajv = () =>
  (shared ??= withFormats(
    newAjv({ allErrors: false, strict: false, useDefaults: true, validateSchema: false, code: { optimize: false } }),
  ));

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = ajv().compile(schema)));
  return check;
}

const TYPE_NAMES: Record<string, string> = {
  object: 'a JSON object',
  array: 'an array',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

/** `metadata.serial must be a string`: where, then the rule, in the words users read in every 400. */
export function describeSchemaError(error: ErrorObject, root = 'the body'): string {
  const where = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : root;
  const params = error.params as Record<string, unknown>;
  if (error.propertyName !== undefined) return `${where} has a key "${error.propertyName}" that ${error.message}`;
  switch (error.keyword) {
    case 'required':
      return `${error.instancePath ? `${where}.` : ''}${params.missingProperty as string} is required`;
    case 'additionalProperties':
      return `${where} has an unknown field ${params.additionalProperty as string}`;
    case 'type':
      return `${where} must be ${[params.type]
        .flat()
        .map((t) => TYPE_NAMES[t as string] ?? t)
        .join(' or ')}`;
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${where} ${error.message}`;
  }
}

/** Null when the value holds to the schema, else the first broken rule as a sentence. */
export function schemaProblem(schema: JsonSchema, value: unknown, root?: string): string | null {
  const check = compileSchema(schema);
  return check(value) ? null : describeSchemaError(check.errors![0], root);
}

/**
 * A schema a user configured (the configuration registry's `configSchema`), not one of ours: compiled by an ajv of
 * its own, so that its `$id`s and mistakes stay with it, in the draft its `$schema` names (draft-07 by default).
 * Throws when it is not a valid JSON Schema; the caller keeps the result for as long as the schema is unchanged.
 */
export function compileUserSchema(schema: unknown): ValidateFunction {
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    throw new Error('a JSON Schema is an object or a boolean');
  }
  // The same schema text comes back at every seed, reset and import: compile it once (an ajv instance is costly).
  const text = JSON.stringify(schema);
  const known = userSchemas.get(text);
  if (known) return known;
  const compiled = compileFresh(schema);
  if (userSchemas.size >= 256) userSchemas.clear();
  userSchemas.set(text, compiled);
  return compiled;
}

const userSchemas = new Map<string, ValidateFunction>();

// The drafts other than draft-07 are loaded by the first schema that names one.
function newAjv2019(options: Options): Ajv2019 {
  const { Ajv2019: Draft2019 } = require('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 };
  return new Draft2019(options);
}

function newAjv2020(options: Options): Ajv2020 {
  const { Ajv2020: Draft2020 } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  return new Draft2020(options);
}

type Draft = '2020-12' | '2019-09' | '07';

function newInstance(draft: Draft, options: Options): Ajv {
  return withFormats(
    (draft === '2020-12' ? newAjv2020(options) : draft === '2019-09' ? newAjv2019(options) : newAjv(options)) as Ajv,
  );
}

/**
 * One ajv per draft that only checks schemas against their meta-schema, as a fresh instance would before it
 * compiles (the same options, so the same message): its meta-schema is compiled once per process, not for every
 * user schema.
 */
const metaCheckers = new Map<Draft, Ajv>();

function compileFresh(schema: object | boolean): ValidateFunction {
  const name = typeof schema === 'object' ? String((schema as { $schema?: unknown }).$schema ?? '') : '';
  const draft: Draft = name.includes('2020-12') ? '2020-12' : name.includes('2019-09') ? '2019-09' : '07';
  const options: Options = { allErrors: true, strict: false };
  let checker = metaCheckers.get(draft);
  if (!checker) metaCheckers.set(draft, (checker = newInstance(draft, options)));
  // Throws when the schema is invalid; its answer is a Promise only for an $async meta-schema, and no draft's is.
  void checker.validateSchema(schema as object, true);
  return newInstance(draft, { ...options, validateSchema: false }).compile(schema as object);
}

/** Every broken rule (at most `max`) as sentences joined by `; `. */
export function describeSchemaErrors(errors: readonly ErrorObject[], root?: string, max = 5): string {
  const shown = errors.slice(0, max).map((e) => describeSchemaError(e, root));
  return shown.join('; ') + (errors.length > max ? `; and ${errors.length - max} more` : '');
}
