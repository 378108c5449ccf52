import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './contract.js';

/** One ajv for request bodies, fixtures and imports, so that one rule reads the same everywhere. */
const ajv = new Ajv({ allErrors: false, strict: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = ajv.compile(schema)));
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
  switch (error.keyword) {
    case 'required':
      return `${error.instancePath ? `${where}.` : ''}${params.missingProperty as string} is required`;
    case 'additionalProperties':
      return `${where} has an unknown field ${params.additionalProperty as string}`;
    case 'type':
      return `${where} must be ${[params.type].flat().map((t) => TYPE_NAMES[t as string] ?? t).join(' or ')}`;
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
