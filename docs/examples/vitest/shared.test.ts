import { beforeEach, expect, inject, it } from 'vitest';

const url = inject('emulatorUrl');
const admin = { authorization: `Bearer ${inject('adminToken')}` };
const user = { authorization: `Bearer ${inject('accessToken')}` };

// The emulator lives in the global setup's process: the test files drive it over its control plane.
beforeEach(async () => {
  await fetch(`${url}/_emu/snapshots/clean/restore`, { method: 'POST', headers: admin });
});

it('registers an endpoint with a bearer token', async () => {
  const response = await fetch(`${url}/epr/api/v1/endpoints`, {
    method: 'POST',
    headers: { ...user, 'content-type': 'application/json' },
    body: JSON.stringify({ appVersion: { name: 'tracker-v1' }, endpointId: 'tracker-100' }),
  });
  expect(response.status).toBe(201);
});

it('starts each test from the snapshot', async () => {
  const response = await fetch(`${url}/epr/api/v1/endpoints/tracker-100`, { headers: user });
  expect(response.status).toBe(404);
});

it('sees the requests it made in the journal', async () => {
  await fetch(`${url}/epr/api/v1/endpoints/meter-001`, { headers: user });
  const journal = await (await fetch(`${url}/_emu/requests?path=/epr/api/v1/endpoints/meter-001`, { headers: admin })).json();
  expect(journal.at(-1)).toMatchObject({ method: 'GET', status: 200, tenantId: 'acme' });
});
