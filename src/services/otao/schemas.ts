import { tenantRecord, typedSchema, type FromSchema } from '../../contract.js';

export const ROLLOUT_STRATEGIES = ['suspended', 'targeted', 'general'] as const;

/** Spec 2: `yyyy-MM-dd'T'HH:mm:ss'Z'`. */
export const ROLLOUT_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';

const filter = {
  type: 'object',
  required: ['filterId'],
  properties: {
    filterId: { type: 'string', minLength: 1 },
    rolloutDate: { type: 'string', pattern: ROLLOUT_DATE_PATTERN },
  },
  additionalProperties: false,
} as const;

const fields = {
  metadata: {},
  upgradableFrom: { type: 'array', items: { type: 'string' } },
  rolloutStrategy: { enum: ROLLOUT_STRATEGIES },
  filters: { type: 'array', items: filter },
} as const;

/** `POST .../software/{softwareVersion}`. */
export const softwareCreateSchema = typedSchema({
  type: 'object',
  properties: { specification: {}, ...fields },
  additionalProperties: false,
});

/** `PUT .../software/{softwareVersion}`: `specification` is named so that its refusal can say why. */
export const softwareUpdateSchema = typedSchema({
  type: 'object',
  required: ['rolloutStrategy'],
  properties: { specification: {}, ...fields },
  additionalProperties: false,
});

/**
 * The body of `POST` (all optional, strategy default `suspended`) and of `PUT` (strategy required, no specification).
 */
export type SoftwareInput = FromSchema<typeof softwareCreateSchema>;
export type RolloutFilter = FromSchema<typeof filter>;

export const softwareRecord = tenantRecord(['appName', 'version', 'rolloutStrategy', 'createdDate', 'updatedDate']);
