import { readdirSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../src/contract.js';
import { services } from '../src/services/index.js';

// The emulator's own ajv does not check its schemas against the meta-schema at start (src/schema/json-schema.ts):
// this test does, for every schema the services declare, so that a broken one still fails before it ships.
const ajv = new Ajv({ strict: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);

function declaredSchemas(): Array<[string, JsonSchema]> {
  const found: Array<[string, JsonSchema]> = [];
  for (const service of services) {
    for (const route of service.routes) {
      if (route.bodySchema) found.push([`${service.prefix} ${route.method} ${route.path} body`, route.bodySchema]);
      for (const param of route.query ?? [])
        if (param.schema) found.push([`${service.prefix} ${route.method} ${route.path} ?${param.name}`, param.schema]);
    }
    for (const section of service.fixtures ?? [])
      found.push([`${service.prefix} fixture section ${section.key}`, section.item]);
    for (const [name, schema] of Object.entries(service.collections ?? {}))
      found.push([`${service.prefix} collection ${name}`, schema]);
  }
  return found;
}

async function exportedSchemas(): Promise<Array<[string, JsonSchema]>> {
  const found: Array<[string, JsonSchema]> = [];
  const root = new URL('../src/services/', import.meta.url);
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const folder = entry.name;
    if (!entry.isDirectory() || !readdirSync(new URL(`${folder}/`, root)).includes('schemas.ts')) continue;
    const module = (await import(new URL(`${folder}/schemas.ts`, root).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (
        typeof value === 'object' &&
        value !== null &&
        ('type' in value || 'properties' in value || 'oneOf' in value || 'anyOf' in value)
      ) {
        found.push([`${folder}/schemas.ts ${name}`, value as JsonSchema]);
      }
    }
  }
  return found;
}

describe("the services' JSON schemas", () => {
  it('are valid draft-07 schemas', async () => {
    const schemas = [...declaredSchemas(), ...(await exportedSchemas())];
    expect(schemas.length).toBeGreaterThan(50);
    const invalid = schemas
      .filter(([, schema]) => !ajv.validateSchema(schema))
      .map(([where]) => `${where}: ${ajv.errorsText()}`);
    expect(invalid).toEqual([]);
  });

  it('a broken schema is caught', () => {
    expect(ajv.validateSchema({ type: 'object', required: 'name' })).toBe(false);
  });
});
