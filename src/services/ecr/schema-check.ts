import type { ValidateFunction } from 'ajv';
import type { EmuContext } from '../../context.js';
import type { JsonSchema } from '../../contract.js';
import { HttpError, notFound } from '../../server/errors.js';
import { isPlainObject } from '../../store/index.js';
import { compileUserSchema, describeSchemaErrors } from '../../schema/json-schema.js';
import { findAppConfig, serviceConfiguration } from '../tekton/app-configs.js';
import { payloadValue, type ConfigPayload } from './payload.js';

/** The key of the registry's own part of an application version's configuration (application configuration service). */
export const ECR_SETTINGS_KEY = 'ecr';

/**
 * The schema of that part, as the service instance declares it (`appVersionConfigurationSchema`):
 * `{ "configSchema": <JSON Schema>, "configSchemaRequired": <boolean, default false> }`.
 */
export const ecrVersionSettingsSchema: JsonSchema = {
  type: 'object',
  properties: {
    configSchema: {
      type: ['object', 'boolean'],
      description: 'JSON Schema every configuration payload of the version must satisfy',
    },
    configSchemaRequired: {
      type: 'boolean',
      default: false,
      description: 'true: configurations are refused (404) while no configSchema is set',
    },
  },
};

type SchemaRule =
  | { kind: 'none' }
  | { kind: 'missing' }
  | { kind: 'broken'; reason: string }
  | { kind: 'schema'; validate: ValidateFunction };

const NONE: SchemaRule = { kind: 'none' };

/**
 * Compiled once per stored configuration record: records are replaced on every write, so a changed schema is a new key.
 */
const compiled = new WeakMap<object, SchemaRule>();

function ruleOf(settings: unknown): SchemaRule {
  if (settings === undefined) return NONE;
  if (!isPlainObject(settings))
    return { kind: 'broken', reason: `its "${ECR_SETTINGS_KEY}" configuration is not a JSON object` };
  const { configSchema, configSchemaRequired = false } = settings;
  if (typeof configSchemaRequired !== 'boolean')
    return { kind: 'broken', reason: 'configSchemaRequired is not true or false' };
  if (configSchema === undefined) return configSchemaRequired ? { kind: 'missing' } : NONE;
  try {
    return { kind: 'schema', validate: compileUserSchema(configSchema) };
  } catch (err) {
    return { kind: 'broken', reason: `its configSchema is not a valid JSON Schema: ${(err as Error).message}` };
  }
}

function schemaRule(ctx: EmuContext, appVersionName: string): SchemaRule {
  const record = findAppConfig(ctx, appVersionName);
  if (!record) return NONE;
  let rule = compiled.get(record);
  if (!rule) compiled.set(record, (rule = ruleOf(serviceConfiguration(ctx, appVersionName, ECR_SETTINGS_KEY))));
  return rule;
}

/**
 * Spec 1 Errors, for every configuration write of the version: 404 when a schema is required and absent,
 * 503 when the configured schema is unusable, 422 with ajv's reasons when the payload breaks it.
 */
export function checkPayload(ctx: EmuContext, appVersionName: string, payload: ConfigPayload): void {
  const rule = schemaRule(ctx, appVersionName);
  const where = `application version ${appVersionName}`;
  switch (rule.kind) {
    case 'none':
      return;
    case 'missing':
      throw notFound(
        `The configuration of ${where} requires a configuration schema (ecr.configSchemaRequired) and none is ` +
          `set; set ecr.configSchema in the application configuration service first.`,
      );
    case 'broken':
      throw new HttpError(
        503,
        `The registry is configured with an invalid configuration schema for ${where}: ${rule.reason}.`,
      );
    case 'schema':
      if (!rule.validate(payloadValue(payload))) {
        throw new HttpError(
          422,
          `The configuration does not satisfy the configuration schema of ${where}: ` +
            `${describeSchemaErrors(rule.validate.errors ?? [], 'the configuration')}.`,
        );
      }
  }
}
