import { describe, expect, it } from 'vitest';
import { PIPELINE, TIMESTAMP } from '../helpers/asf.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

describe('analytics facade', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('is listed by GET /app-manager/api/v1/service-instances under /asf', async () => {
    const instances = (await call('GET', '/app-manager/api/v1/service-instances')).body as any[];
    expect(instances.filter((i) => i.urlPrefix === '/asf')).toEqual([
      expect.objectContaining({ name: 'asf', serviceGroup: 'device' }),
    ]);
  });

  describe('pipelines', () => {
    it(
      'PUT creates and replaces, GET answers it under the stored name (tenant-prefixed), DELETE removes ' + 'it',
      async () => {
        const definition = {
          description: 'sets the OS',
          processors: [{ set: { field: 'host.os.name', value: '{{os}}' } }],
        };
        const put = await call('PUT', `${PIPELINE}/set_os`, { body: definition });
        expect(put.status).toBe(200);
        expect(put.body).toEqual({ acknowledged: true });
        expect((await call('GET', `${PIPELINE}/set_os`)).body).toEqual({ 'acme-set_os': definition });
        const replaced = { processors: [{ lowercase: { field: 'os' } }] };
        expect((await call('PUT', `${PIPELINE}/set_os`, { body: replaced })).body).toEqual({ acknowledged: true });
        expect((await call('GET', `${PIPELINE}/set_os`)).body).toEqual({ 'acme-set_os': replaced });
        const deleted = await call('DELETE', `${PIPELINE}/set_os`);
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual({ acknowledged: true });
        expect((await call('GET', `${PIPELINE}/set_os`)).status).toBe(404);
        expect((await call('DELETE', `${PIPELINE}/set_os`)).status).toBe(404);
      },
    );

    it.each([
      [{}, /processors is required/],
      [{ processors: {} }, /processors must be an array/],
      [{ processors: [], colour: 'red' }, /unknown field colour/],
      [
        { processors: [{ grok: { field: 'message', patterns: ['%{IP:ip}'] } }] },
        /processors\[0\]: the processor \[grok\] is not supported by the emulator; it runs append, convert/,
      ],
      [
        { processors: [{ set: { field: 'a', value: 1 }, remove: { field: 'b' } }] },
        /processors\[0\] must be an object with one key/,
      ],
      [
        { processors: [{ set: { tag: 'fails', value: '_value' } }] },
        /processors\[0\] \(set, tag fails\): \[field\] required property is missing/,
      ],
      [{ processors: [{ set: { field: 'field2' } }] }, /\[value\] required property is missing/],
      [
        { processors: [{ set: { field: 'a', value: 1, colour: 'red' } }] },
        /doesn't support one or more provided configuration parameters \[colour\]/,
      ],
      [{ processors: [{ remove: { field: 'a', keep: ['b'] } }] }, /parameters \[keep\]/],
      [{ processors: [{ convert: { field: 'a', type: 'mac' } }] }, /mac is not supported/],
      [{ processors: [{ convert: { field: 'a', type: 'number' } }] }, /type \[number\] not supported/],
      [
        { processors: [{ set: { field: 'a', value: '{{#toJson}}a{{/toJson}}' } }] },
        /sections, partials and delimiters\) is not supported/,
      ],
      [{ processors: [{ set: { field: 'a', value: '{{a' } }] }, /is not closed/],
      [
        { processors: [{ rename: { field: 'a', target_field: 'b', on_failure: [] } }] },
        /\[on_failure\] processors list cannot be empty/,
      ],
      [
        { processors: [{ set: { field: 'a', value: 1, on_failure: [{ bytes: { field: 'x' } }] } }] },
        /processors\[0\]\.on_failure\[0\]: the processor \[bytes\] is not supported/,
      ],
      [
        { processors: [{ set: { field: 'a', value: 1, ignore_failure: 'sometimes' } }] },
        /\[ignore_failure\] property isn't a boolean/,
      ],
    ])('PUT %j is 400 and stores nothing', async (body, message) => {
      const response = await call('PUT', `${PIPELINE}/refused`, { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
      expect((await call('GET', `${PIPELINE}/refused`)).status).toBe(404);
    });

    it('simulates a stored pipeline (documents with and without _index, _type, _id)', async () => {
      await call('PUT', `${PIPELINE}/my_pipeline`, {
        body: { description: '_description', processors: [{ set: { field: 'field2', value: '_value' } }] },
      });
      const response = await call('POST', `${PIPELINE}/simulate/my_pipeline`, {
        body: {
          docs: [{ _index: 'index', _type: 'type', _id: 'id', _source: { foo: 'bar' } }, { _source: { foo: 'rab' } }],
        },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        docs: [
          {
            doc: {
              _index: 'index',
              _type: 'type',
              _id: 'id',
              _source: { foo: 'bar', field2: '_value' },
              _ingest: { timestamp: expect.stringMatching(TIMESTAMP) },
            },
          },
          {
            doc: {
              _index: '_index',
              _type: '_doc',
              _id: '_id',
              _source: { foo: 'rab', field2: '_value' },
              _ingest: { timestamp: expect.stringMatching(TIMESTAMP) },
            },
          },
        ],
      });
    });

    it.each([
      [{}, /docs is required/],
      [{ docs: [] }, /docs must NOT have fewer than 1 items/],
      [{ docs: [{ foo: 'bar' }] }, /docs.0._source is required|_source is required/],
      [{ docs: [{ _source: 'text' }] }, /_source must be a JSON object/],
      [{ docs: [{ _id: 5, _source: {} }] }, /_id must be a string/],
    ])('simulating with %j is 400', async (body, message) => {
      const response = await call('POST', `${PIPELINE}/simulate/my_pipeline`, { body });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(message);
    });

    it('404 for simulating a pipeline that does not exist; inline without a pipeline is 400', async () => {
      expect((await call('POST', `${PIPELINE}/simulate/nope`, { body: { docs: [{ _source: {} }] } })).status).toBe(404);
      const missing = await call('POST', `${PIPELINE}/simulate/`, { body: { docs: [{ _source: {} }] } });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/pipeline is required/);
    });
  });

  describe('with auth on, pipelines are per tenant', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const emu = api(secured);
    const acme = await tokenFor(secured, { tenant: 'acme' });
    const globex = await tokenFor(secured, { tenant: 'globex' });

    it("another tenant's pipeline is invisible, and the same id is a pipeline of its own", async () => {
      await emu('PUT', `${PIPELINE}/shared-name`, {
        body: { processors: [{ set: { field: 'who', value: 'acme' } }] },
        token: acme,
      });
      expect((await emu('GET', `${PIPELINE}/shared-name`, { token: globex })).status).toBe(404);
      expect(
        (await emu('POST', `${PIPELINE}/simulate/shared-name`, { body: { docs: [{ _source: {} }] }, token: globex }))
          .status,
      ).toBe(404);
      expect((await emu('DELETE', `${PIPELINE}/shared-name`, { token: globex })).status).toBe(404);
      await emu('PUT', `${PIPELINE}/shared-name`, {
        body: { processors: [{ set: { field: 'who', value: 'globex' } }] },
        token: globex,
      });
      expect(Object.keys((await emu('GET', `${PIPELINE}/shared-name`, { token: globex })).body)).toEqual([
        'globex-shared-name',
      ]);
      const simulated = await emu('POST', `${PIPELINE}/simulate/shared-name`, {
        body: { docs: [{ _source: {} }] },
        token: acme,
      });
      expect(simulated.body.docs[0].doc._source).toEqual({ who: 'acme' });
      // The inline simulation lists no scope: no token needed.
      expect(
        (
          await emu('POST', `${PIPELINE}/simulate/`, {
            body: { pipeline: { processors: [] }, docs: [{ _source: { a: 1 } }] },
          })
        ).status,
      ).toBe(200);
    });
  });
});
