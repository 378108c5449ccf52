import type { JsonSchema } from '../../contract.js';

/** Series names are listed comma-separated in queries, so a name never holds a comma. */
export const SERIES_NAME_PATTERN = '^[^,]+$';

const dataPoint: JsonSchema = {
  type: 'object',
  required: ['timestamp', 'values'],
  properties: { timestamp: { type: 'string' }, values: { type: 'object' } },
  additionalProperties: false,
};

/** `PUT .../time-series/data`: endpoint id → series name → data points. */
export const timeSeriesDataSchema: JsonSchema = {
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { type: 'array', items: dataPoint } },
};

export const definitionFixtureSchema: JsonSchema = {
  type: 'object',
  required: ['applicationName', 'name', 'values'],
  properties: {
    applicationName: { type: 'string' },
    name: { type: 'string', pattern: SERIES_NAME_PATTERN },
    values: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
  },
  additionalProperties: false,
};
