import { expect } from 'vitest';
import type { ApiResponse } from './emulator.js';

export const IAM = '/iam/api/v1';
let serial = 0;

/** A valid create request, new at each call; the spec's e-mail pattern wants a 2-3 letter top-level domain. */
export function newUser(fields: Record<string, unknown> = {}) {
  const n = ++serial;
  return { email: `user${n}@acme.com`, username: `user-${n}`, password: 'pw-1', confirmPassword: 'pw-1', ...fields };
}

/** 400, 401 and 403 of the identity and access manager have no body (spec 3); the reason is in a header. */
export function expectBare(response: ApiResponse, status: number, reason?: RegExp) {
  expect(response.status).toBe(status);
  expect(response.text).toBe('');
  if (reason) expect(response.headers.get('x-platform-emu-message')).toMatch(reason);
}
