import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

/**
 * The routes outside the services (control plane, LoRaWAN and mail control, the dashboard's API, the OIDC realms)
 * are route tables mounted like a service's: the same 405, body schemas, limits and error shape.
 */
describe('routes outside the services', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('answer a known path asked with another method with 405, Allow and a message', async () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/_emu/faults/fault-1', 'DELETE'],
      ['GET', '/_emu/devices/meter-001', 'DELETE'],
      ['DELETE', '/_emu/lorawan/integrations', 'GET, HEAD'],
      ['POST', '/_emu/mail', 'GET, HEAD, DELETE'],
      ['PATCH', '/_emu/connections/online', 'GET, HEAD'],
      ['GET', '/auth/realms/acme/protocol/openid-connect/token', 'POST'],
      ['DELETE', '/auth/realms/acme/protocol/openid-connect/certs', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await call(method, path);
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')?.split(', ').sort(), `${method} ${path}`).toEqual(allow.split(', ').sort());
      expect(response.body.message).toContain(`${method} is not allowed on ${path}`);
    }
  });

  it("check bodies against the route schema with the services' sentences, and change nothing", async () => {
    const before = (await call('GET', '/_emu/clock')).body;
    const cases: Array<[string, string, unknown, RegExp]> = [
      [
        'PUT',
        '/_emu/clock',
        { now: '2030-01-01T00:00:00Z', speed: 2 },
        /^Invalid request body: the body has an unknown field speed\.$/,
      ],
      ['PUT', '/_emu/clock', { frozen: 'yes' }, /^Invalid request body: frozen must be true or false\.$/],
      ['PUT', '/_emu/clock', [], /^Invalid request body: the body must be a JSON object\.$/],
      ['POST', '/_emu/reset', { empty: 'yes' }, /empty must be true or false/],
      ['POST', '/_emu/token', { scopes: 'endpoint:read' }, /scopes must be an array/],
      ['POST', '/_emu/snapshots', {}, /name is required/],
      [
        'POST',
        '/_emu/devices',
        { endpointId: 'meter-001', config: 'maybe' },
        /config must be one of true, false, "reject"/,
      ],
      ['PUT', '/_emu/endpoints/meter-001/metadata', { 'no spaces': 1 }, /key "no spaces"/],
      ['PATCH', '/_emu/lorawan/integrations/1', { state: 'SOMETIMES' }, /state must be one of/],
    ];
    for (const [method, path, body, message] of cases) {
      const response = await call(method, path, { body });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.message).toMatch(message);
    }
    expect((await call('GET', '/_emu/clock')).body.mode).toBe(before.mode);
    expect((await call('GET', '/_emu/devices')).body).toEqual([]);
    expect((await call('GET', '/_emu/snapshots')).body).toEqual([]);
  });

  it('act in no tenant: the journal attributes them to none', async () => {
    await call('GET', '/_emu/devices');
    const entries = (await call('GET', '/_emu/requests?path=/_emu/devices')).body as Array<Record<string, unknown>>;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => entry.tenantId === undefined)).toBe(true);
  });

  it('refuse hostile bodies: nesting past the limit, malformed JSON, an oversized OAuth form', async () => {
    const deep = '['.repeat(300) + ']'.repeat(300);
    const nested = await call('PUT', '/_emu/clock', {
      rawBody: `{"now":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(nested.status).toBe(400);
    expect(nested.body.message).toMatch(/nest/i);
    const malformed = await call('POST', '/_emu/devices', {
      rawBody: '{"endpointId":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/not valid JSON/);
    const form = `grant_type=password&username=${'a'.repeat(70_000)}`;
    const large = await call('POST', '/auth/realms/acme/protocol/openid-connect/token', {
      rawBody: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(large.status).toBe(413);
    expect(large.body.message).toBeTruthy();
  });
});
