import type { AppliedReport } from '../../../services/ecr/device.js';
import { describeValue, invalidPayload, optionalObject, requiredObject } from '../../extension.js';

/**
 * The configuration exchange of `cmx` (spec 4), which `cmx_ota` repeats for software: ask on `config/json`, report on
 * `applied/json`. Only the payloads are parsed here; what is offered and recorded is the owning service's.
 */

export interface ConfigRequest {
  /** The configuration (or software version) the device has; the answer is `{}` when it is the current one. */
  configId?: string;
  observe?: boolean;
}

export function configRequestOf(payload: unknown): ConfigRequest {
  const { configId, observe } = requiredObject(payload, ['configId', 'observe'], 'config/json');
  if (configId !== undefined && typeof configId !== 'string')
    throw invalidPayload(`configId must be a string; got ${describeValue(configId)}.`);
  if (observe !== undefined && typeof observe !== 'boolean')
    throw invalidPayload(`observe must be true or false; got ${describeValue(observe)}.`);
  return { configId, observe };
}

export function appliedReportOf(payload: unknown): AppliedReport {
  if (payload === undefined)
    throw invalidPayload(
      'The applied/json payload must be an object like {"configId": "...", "statusCode": 200}; got nothing.',
    );
  const {
    configId,
    statusCode = 200,
    reasonPhrase,
  } = optionalObject(payload, ['configId', 'statusCode', 'reasonPhrase'], 'applied/json');
  if (typeof configId !== 'string' || configId === '')
    throw invalidPayload(
      `configId is required: the non-empty id of the configuration the device applied; got ` +
        `${configId === undefined ? 'nothing' : describeValue(configId)}.`,
    );
  if (!Number.isSafeInteger(statusCode) || (statusCode as number) < 100 || (statusCode as number) > 599) {
    throw invalidPayload(
      `statusCode must be an HTTP-style integer from 100 to 599 (default 200; 400 or more rejects); got ` +
        `${describeValue(statusCode)}.`,
    );
  }
  if (reasonPhrase !== undefined && typeof reasonPhrase !== 'string')
    throw invalidPayload(`reasonPhrase must be a string; got ${describeValue(reasonPhrase)}.`);
  return { configId, statusCode: statusCode as number, ...(reasonPhrase !== undefined ? { reasonPhrase } : {}) };
}
