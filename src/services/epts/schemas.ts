import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

/** Series names are listed comma-separated in queries, so a name never holds a comma. */
export const SERIES_NAME_PATTERN = '^[^,]+$';

const dataPoint = {
  type: 'object',
  required: ['timestamp', 'values'],
  properties: { timestamp: { type: 'string' }, values: { type: 'object' } },
  additionalProperties: false,
} as const;

/** `PUT .../time-series/data`: endpoint id → series name → data points. */
export const timeSeriesDataSchema = typedSchema({
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { type: 'array', items: dataPoint } },
});

/** The body of `PUT .../time-series/data`, after its schema: endpoint id → series name → data points. */
export type TimeSeriesBody = FromSchema<typeof timeSeriesDataSchema>;

export const definitionFixtureSchema = {
  type: 'object',
  required: ['applicationName', 'name', 'values'],
  properties: {
    applicationName: { type: 'string' },
    name: { type: 'string', pattern: SERIES_NAME_PATTERN },
    values: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
  },
  additionalProperties: false,
} as const;

export const definitionRecord = tenantRecord(['applicationName', 'name', 'createdDate', 'updatedDate']);
