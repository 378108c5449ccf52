const url = process.env.EMULATOR_URL;
const admin = { authorization: `Bearer ${process.env.EMULATOR_ADMIN_TOKEN}` };
const user = { authorization: `Bearer ${process.env.EMULATOR_ACCESS_TOKEN}` };

// The emulator lives in Jest's main process: the test files drive it over its control plane.
beforeEach(async () => {
  await fetch(`${url}/_emu/snapshots/clean/restore`, { method: 'POST', headers: admin });
});

test('registers an endpoint with a bearer token', async () => {
  const response = await fetch(`${url}/epr/api/v1/endpoints`, {
    method: 'POST',
    headers: { ...user, 'content-type': 'application/json' },
    body: JSON.stringify({ appVersion: { name: 'tracker-v1' }, endpointId: 'tracker-100' }),
  });
  expect(response.status).toBe(201);
});

test('starts each test from the snapshot', async () => {
  const response = await fetch(`${url}/epr/api/v1/endpoints/tracker-100`, { headers: user });
  expect(response.status).toBe(404);
});
