import type { ErrorObject, ValidateFunction } from 'ajv';
import { readFile } from 'node:fs/promises';
import { newAjv } from '../schema/json-schema.js';
import { SimulatorOptionsError } from './errors.js';
import { renderTemplate, type TemplateContext } from './template.js';

/** How the simulated device answers one command type. */
export interface Rule {
  /** KP1 status code of the result; default 200. */
  statusCode?: number;
  reasonPhrase?: string;
  /** Response payload: fixed JSON, or a template (see template.ts). Absent = no payload. */
  payload?: unknown;
  /** Wait before answering, in milliseconds. */
  delayMs?: number;
  /** Receive the command but never answer it (the REST caller gets 202; the command expires). */
  ignore?: boolean;
}

/** Per command type how to answer; `default` for the types not named (otherwise the echo rule). */
export interface Rules {
  commands?: Record<string, Rule>;
  default?: Rule;
}

/** What the device sends back for one command; `undefined` payload means none. */
export interface Answer {
  statusCode: number;
  reasonPhrase?: string;
  payload?: unknown;
  delayMs: number;
  ignore: boolean;
}

/** Without rules (and for types no rule names, when the file has no `default`): 200 with the request payload. */
export const ECHO_RULE: Rule = { statusCode: 200, payload: '{{payload}}' };

const ruleSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    statusCode: { type: 'integer', minimum: 100, maximum: 599 },
    reasonPhrase: { type: 'string' },
    payload: {},
    delayMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
    ignore: { type: 'boolean' },
  },
};

const rulesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string' },
    commands: {
      type: 'object',
      propertyNames: { pattern: '^[a-zA-Z0-9]+$' },
      additionalProperties: ruleSchema,
    },
    default: ruleSchema,
  },
};

// Compiled by the first rules checked, not when the library is imported (it loads ajv).
let compiledRules: ValidateFunction<Rules> | undefined;
const rulesCheck = () => (compiledRules ??= newAjv({ allErrors: true, strict: false }).compile<Rules>(rulesSchema));

function describe(error: ErrorObject): string {
  const where = error.instancePath ? `at ${error.instancePath}` : 'at the top level';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const allowed =
      error.instancePath === '' ? 'commands, default' : 'statusCode, reasonPhrase, payload, delayMs, ignore';
    return `${where}: unknown field "${String(params.additionalProperty)}" (allowed: ${allowed})`;
  }
  if (error.keyword === 'propertyNames')
    return `${where}: command type "${String(params.propertyName)}" is not alphanumeric`;
  if (error.keyword === 'pattern') return '';
  return `${where}: ${error.message}`;
}

/** Checks rules given as a value (parsed JSON, or an object in a test); every problem is named with its place. */
export function validateRules(value: unknown, source?: string): Rules {
  const validate = rulesCheck();
  if (!validate(value)) {
    const problems = [...new Set((validate.errors ?? []).map(describe).filter(Boolean))];
    throw new SimulatorOptionsError(
      `The rules${source ? ` in ${source}` : ''} are not valid:\n  ${problems.join('\n  ')}`,
    );
  }
  return { commands: value.commands ?? {}, ...(value.default ? { default: value.default } : {}) };
}

/** Reads and validates a rules file (JSON). */
export async function loadRules(file: string): Promise<Rules> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new SimulatorOptionsError(`Cannot read the rules file ${file}: ${(err as Error).message}`);
  }
  return validateRules(parsed, file);
}

export function ruleFor(rules: Rules | undefined, commandType: string): Rule {
  return rules?.commands?.[commandType] ?? rules?.default ?? ECHO_RULE;
}

/** Applies a rule to one received command. */
export function answerFrom(rule: Rule, context: TemplateContext): Answer {
  return {
    statusCode: rule.statusCode ?? 200,
    ...(rule.reasonPhrase !== undefined ? { reasonPhrase: rule.reasonPhrase } : {}),
    ...(rule.payload !== undefined ? { payload: renderTemplate(rule.payload, context) } : {}),
    delayMs: rule.delayMs ?? 0,
    ignore: rule.ignore ?? false,
  };
}
