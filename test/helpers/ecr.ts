import { expect } from 'vitest';
import type { api } from './emulator.js';

export const ECR = '/ecr/api/v1';
/** The configuration of one endpoint for one application version. */
export const one = (endpointId: string, version: string) => `${ECR}/endpoints/${endpointId}/app-versions/${version}`;
/** A JSON body sent as is. */
export const json = (value: unknown) => ({
  rawBody: JSON.stringify(value),
  headers: { 'content-type': 'application/json' },
});

/** Registers new tracker endpoints (their application's version has no configuration schema) through `call`. */
export function trackerRegistrar(call: ReturnType<typeof api>) {
  let registered = 0;
  /** A new tracker endpoint; answers its id. */
  return async function newTracker(): Promise<string> {
    const endpointId = `ecr-tracker-${++registered}`;
    const response = await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, endpointId },
    });
    expect(response.status).toBe(201);
    return endpointId;
  };
}
