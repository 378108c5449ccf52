import type { JsonSchema } from '../../contract.js';
import { ROLLOUT_STRATEGIES } from './software.js';

/** Spec 2: `yyyy-MM-dd'T'HH:mm:ss'Z'`. */
export const ROLLOUT_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';

const filter: JsonSchema = {
  type: 'object',
  required: ['filterId'],
  properties: { filterId: { type: 'string', minLength: 1 }, rolloutDate: { type: 'string', pattern: ROLLOUT_DATE_PATTERN } },
  additionalProperties: false,
};

const fields = {
  metadata: {},
  upgradableFrom: { type: 'array', items: { type: 'string' } },
  rolloutStrategy: { enum: ROLLOUT_STRATEGIES },
  filters: { type: 'array', items: filter },
};

/** `POST .../software/{softwareVersion}`. */
export const softwareCreateSchema: JsonSchema = {
  type: 'object',
  properties: { specification: {}, ...fields },
  additionalProperties: false,
};

/** `PUT .../software/{softwareVersion}`: `specification` is named so that its refusal can say why. */
export const softwareUpdateSchema: JsonSchema = {
  type: 'object',
  required: ['rolloutStrategy'],
  properties: { specification: {}, ...fields },
  additionalProperties: false,
};
