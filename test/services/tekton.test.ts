import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const CONFIG = (app: string, version: string) =>
  `/tekton/api/v1/app-configs/applications/${app}/app-versions/${version}`;

describe('application configuration service', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const tracker = CONFIG('tracker', 'tracker-v1');

  it('serves the fixture configuration of a version', async () => {
    const response = await call('GET', tracker);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      dashboard: { refreshSeconds: 30 },
      epts: { autoExtract: true, fieldSeries: true },
    });
    expect((await call('GET', CONFIG('smart-meter', 'smart-meter-v1'))).body.ecr.configSchemaRequired).toBe(false);
  });

  it('PUT replaces the whole configuration with any JSON value (204), GET returns it', async () => {
    const version = await call('POST', '/app-manager/api/v1/applications/tracker/versions', {
      body: { name: 'tracker-put' },
    });
    expect(version.status).toBe(201);
    const path = CONFIG('tracker', 'tracker-put');
    expect((await call('GET', path)).body).toEqual({});
    for (const value of [{ a: { b: [1, 2] } }, [1, 'two'], 'text', 42, null]) {
      const put = await call('PUT', path, {
        rawBody: JSON.stringify(value),
        headers: { 'content-type': 'application/json' },
      });
      expect(put.status, put.text).toBe(204);
      expect(put.text).toBe('');
      const got = await call('GET', path);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(value);
    }
  });

  it(
    '404 for an unknown application, an unknown version, a version of another application, another ' + 'tenant',
    async () => {
      for (const path of [
        CONFIG('nope', 'tracker-v1'),
        CONFIG('tracker', 'nope'),
        CONFIG('tracker', 'smart-meter-v1'),
        CONFIG('thermostat', 'thermostat-v1'),
      ]) {
        for (const method of ['GET', 'PUT', 'PATCH']) {
          const body =
            method === 'PATCH' ? [{ op: 'add', path: '/x', value: 1 }] : method === 'PUT' ? { x: 1 } : undefined;
          const response = await call(method, path, { body });
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(response.body.message).toMatch(/There is no application|has no version/);
        }
      }
    },
  );

  it('400 for malformed JSON on PUT', async () => {
    const response = await call('PUT', tracker, { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/not valid JSON/);
  });

  describe('PATCH (RFC 6902)', async () => {
    await call('POST', '/app-manager/api/v1/applications/tracker/versions', { body: { name: 'tracker-patch' } });
    const path = CONFIG('tracker', 'tracker-patch');
    const reset = () => call('PUT', path, { body: { name: 'a', list: [1, 2], nested: { x: 1 } } });

    it('applies every operation kind and answers 204', async () => {
      await reset();
      const response = await call('PATCH', path, {
        body: [
          { op: 'test', path: '/name', value: 'a' },
          { op: 'replace', path: '/name', value: 'b' },
          { op: 'add', path: '/list/-', value: 3 },
          { op: 'remove', path: '/list/0' },
          { op: 'copy', from: '/nested', path: '/copied' },
          { op: 'move', from: '/nested/x', path: '/moved' },
          { op: 'add', path: '/ecr', value: { configSchemaRequired: false } },
        ],
      });
      expect(response.status, response.text).toBe(204);
      expect((await call('GET', path)).body).toEqual({
        name: 'b',
        list: [2, 3],
        nested: {},
        copied: { x: 1 },
        moved: 1,
        ecr: { configSchemaRequired: false },
      });
    });

    it('patches a version never configured as the empty object', async () => {
      await call('POST', '/app-manager/api/v1/applications/tracker/versions', { body: { name: 'tracker-fresh' } });
      const fresh = CONFIG('tracker', 'tracker-fresh');
      expect((await call('PATCH', fresh, { body: [{ op: 'add', path: '/ecr', value: {} }] })).status).toBe(204);
      expect((await call('GET', fresh)).body).toEqual({ ecr: {} });
    });

    it.each([
      [
        'a failing test (409)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'test', path: '/name', value: 'zzz' },
        ],
        409,
        /failed/,
      ],
      [
        'a path that does not exist (404)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'remove', path: '/missing' },
        ],
        404,
        /operation \[1\]/,
      ],
      [
        'an add under a missing parent (404)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'add', path: '/missing/deeper', value: 1 },
        ],
        404,
        /operation \[1\]/,
      ],
      [
        'a move from nowhere (404)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'move', from: '/missing', path: '/x' },
        ],
        404,
        /operation \[1\]/,
      ],
      [
        'an array index out of range (404)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'add', path: '/list/9', value: 1 },
        ],
        404,
        /operation \[1\]/,
      ],
      [
        'an add without value (400)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'add', path: '/y' },
        ],
        400,
        /operation \[1\]/,
      ],
      [
        'a path without leading slash (400)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'add', path: 'y', value: 1 },
        ],
        400,
        /operation \[1\]/,
      ],
      [
        'a prototype pollution attempt (404: the configuration has no key __proto__)',
        [
          { op: 'replace', path: '/name', value: 'changed' },
          { op: 'add', path: '/__proto__/polluted', value: 1 },
        ],
        404,
        /patch/,
      ],
    ])('%s: nothing changes', async (_name, patch, status, message) => {
      await reset();
      const before = (await call('GET', path)).body;
      const response = await call('PATCH', path, { body: patch });
      expect(response.status, response.text).toBe(status);
      expect(response.body.message).toMatch(message);
      expect((await call('GET', path)).body).toEqual(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it.each([
      ['an object', { op: 'add', path: '/x', value: 1 }],
      ['an operation without op', [{ path: '/x', value: 1 }]],
      ['an unknown op', [{ op: 'merge', path: '/x', value: 1 }]],
      ['an operation that is not an object', [5]],
    ])('400 for a body that is not a patch array: %s', async (_name, body) => {
      const response = await call('PATCH', path, { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/Invalid request body/);
    });

    it(
      'refuses with 413, storing nothing, a patch whose copies would grow the configuration past the body ' + 'limit',
      async () => {
        await call('PUT', path, { body: { d: ['x'.repeat(30)] } });
        const before = (await call('GET', path)).body;
        // A few hundred bytes, each operation doubling the document: 2^30 times its size without the bound.
        const doubling = Array.from({ length: 30 }, () => ({ op: 'copy', from: '/d', path: '/d/0' }));
        const response = await call('PATCH', path, { body: doubling });
        expect(response.status).toBe(413);
        expect(response.body.message).toMatch(
          new RegExp(
            String.raw`The patch was not applied: after operation \[1\d\] \(copy \/d\/0\) the configuration would be ` +
              String.raw`larger than the body limit of 1048576 bytes`,
          ),
        );
        expect((await call('GET', path)).body).toEqual(before);
      },
    );

    it(
      'refuses with 400 a patch that copies more than 16 times the body limit in all, even if each copy is ' +
        'removed again',
      async () => {
        await call('PUT', path, { body: { big: 'y'.repeat(200_000) } });
        const churn = Array.from({ length: 90 }, () => [
          { op: 'copy', from: '/big', path: '/copy' },
          { op: 'remove', path: '/copy' },
        ]).flat();
        const response = await call('PATCH', path, { body: churn });
        expect(response.status).toBe(400);
        expect(response.body.message).toMatch(/adds, copies and tests more than 16 times the body limit/);
        expect(Object.keys((await call('GET', path)).body)).toEqual(['big']);
      },
    );

    it('400 for a PATCH without a body', async () => {
      const response = await call('PATCH', path);
      expect(response.status).toBe(400);
    });
  });

  it('needs application:read / application:update when auth is on', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const callSecured = api(secured);
    const reader = await tokenFor(secured, { scopes: ['application:read'] });
    const writer = await tokenFor(secured, { scopes: ['application:update'] });
    expect((await callSecured('GET', tracker, { token: reader })).status).toBe(200);
    expect((await callSecured('PUT', tracker, { token: reader, body: {} })).status).toBe(403);
    expect((await callSecured('PUT', tracker, { token: writer, body: { v: 2 } })).status).toBe(204);
    expect(
      (await callSecured('PATCH', tracker, { token: writer, body: [{ op: 'add', path: '/w', value: 1 }] })).status,
    ).toBe(204);
    expect((await callSecured('GET', tracker, { token: reader })).body).toEqual({ v: 2, w: 1 });
  });
});
