import { describe, expect, it } from 'vitest';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const ASF = '/asf/api/v1';
const PIPELINE = `${ASF}/_ingest/pipeline`;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('analytics facade', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  /** Runs documents through a pipeline given inline; answers the `docs` of the simulation. */
  const simulate = async (processors: unknown[], docs: unknown[], extra: Record<string, unknown> = {}) => {
    const response = await call('POST', `${PIPELINE}/simulate/`, {
      body: { pipeline: { processors, ...extra }, docs },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.docs as any[];
  };
  const sourceOf = async (processors: unknown[], source: Record<string, unknown>) => {
    const [result] = await simulate(processors, [{ _source: source }]);
    expect(result.doc, JSON.stringify(result)).toBeDefined();
    return result.doc._source;
  };

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

  describe("the search engine's documented examples give the same documents", () => {
    it('set: copies a field with a template (set processor docs)', async () => {
      const [result] = await simulate(
        [{ set: { field: 'host.os.name', value: '{{os}}' } }],
        [{ _source: { os: 'Ubuntu' } }],
      );
      expect(result).toEqual({
        doc: {
          _index: '_index',
          _type: '_doc',
          _id: '_id',
          _source: { host: { os: { name: 'Ubuntu' } }, os: 'Ubuntu' },
          _ingest: { timestamp: expect.stringMatching(TIMESTAMP) },
        },
      });
    });

    it('set: copy_from copies an array', async () => {
      expect(await sourceOf([{ set: { field: 'bar', copy_from: 'foo' } }], { foo: ['foo1', 'foo2'] })).toEqual({
        bar: ['foo1', 'foo2'],
        foo: ['foo1', 'foo2'],
      });
    });

    it(
      'set, append, rename, remove, lowercase, uppercase, trim, convert (the mutate test of the search ' + 'engine)',
      async () => {
        const source = await sourceOf(
          [
            { set: { field: 'new_field', value: 'new_value' } },
            { append: { field: 'new_field', value: ['item2', 'item3', 'item4'] } },
            { rename: { field: 'field_to_rename', target_field: 'renamed_field' } },
            { remove: { field: 'field_to_remove' } },
            { lowercase: { field: 'field_to_lowercase' } },
            { uppercase: { field: 'field_to_uppercase' } },
            { trim: { field: 'field_to_trim' } },
            { convert: { field: 'field_to_convert', type: 'integer' } },
          ],
          {
            field_to_rename: 'value',
            field_to_remove: 'old_value',
            field_to_lowercase: 'LOWERCASE',
            field_to_uppercase: 'uppercase',
            field_to_trim: '   trimmed   ',
            field_to_convert: ['127', '0', '0', '1'],
          },
        );
        expect(source).toEqual({
          new_field: ['new_value', 'item2', 'item3', 'item4'],
          renamed_field: 'value',
          field_to_lowercase: 'lowercase',
          field_to_uppercase: 'UPPERCASE',
          field_to_trim: 'trimmed',
          field_to_convert: [127, 0, 0, 1],
        });
      },
    );

    it("set on _index changes the document's index, not its source", async () => {
      const [result] = await simulate(
        [{ set: { field: '_index', value: 'surprise' } }],
        [{ _index: 'test', _id: '1', _source: { field: 'value' } }],
      );
      expect(result.doc._index).toBe('surprise');
      expect(result.doc._source).toEqual({ field: 'value' });
      const [routed] = await simulate(
        [{ set: { field: '_routing', value: '{{region}}' } }],
        [{ _source: { region: 'eu' } }],
      );
      expect(routed.doc).toMatchObject({ _routing: 'eu', _source: { region: 'eu' } });
      const [numeric] = await simulate([{ script: { source: 'ctx._index = 5' } }], [{ _source: {} }]);
      expect(numeric.error.reason).toBe('_index must be a string; the pipeline left it java.lang.Integer');
      const [clash] = await simulate([], [{ _source: { _id: 'inside' } }]);
      expect(clash.error.reason).toMatch(/_source must not contain the metadata field \[_id\]/);
    });

    it('script: (field_a + field_b) * params.param_c (script processor docs)', async () => {
      const processor = {
        script: {
          lang: 'painless',
          source: 'ctx.field_a_plus_b_times_c = (ctx.field_a + ctx.field_b) * params.param_c',
          params: { param_c: 10 },
        },
      };
      expect(await sourceOf([processor], { field_a: 2, field_b: 3 })).toEqual({
        field_a: 2,
        field_b: 3,
        field_a_plus_b_times_c: 50,
      });
    });

    it("script: ctx._index and ctx._type set the document's metadata", async () => {
      const [result] = await simulate(
        [{ script: { source: "\n  ctx._index = 'my-index';\n  ctx._type = '_doc';\n" } }],
        [{ _index: 'any-index', _id: '1', _source: { message: 'text' } }],
      );
      expect(result.doc).toMatchObject({ _index: 'my-index', _type: '_doc', _id: '1', _source: { message: 'text' } });
    });

    it('a failing processor fails its document only (uppercase of a missing field)', async () => {
      const docs = await simulate(
        [{ uppercase: { field: 'foo' } }],
        [{ _source: { not_foo: 'bar' } }, { _source: { foo: 'bar' } }],
      );
      expect(docs[0].error).toMatchObject({
        type: 'illegal_argument_exception',
        reason: 'field [foo] not present as part of path [foo]',
        processor_type: 'uppercase',
      });
      expect(docs[0].error.root_cause[0].type).toBe('illegal_argument_exception');
      expect(docs[1].doc._source).toEqual({ foo: 'BAR' });
      expect(Object.keys(docs[1].doc._ingest)).toEqual(['timestamp']);
    });

    it('convert: "bar" to integer fails, "5" becomes 5', async () => {
      const docs = await simulate(
        [{ convert: { field: 'foo', type: 'integer' } }],
        [{ _source: { foo: 'bar' } }, { _source: { foo: '5' } }],
      );
      expect(docs[0].error).toMatchObject({
        type: 'illegal_argument_exception',
        reason: 'unable to convert [bar] to integer',
      });
      expect(docs[1].doc._source).toEqual({ foo: 5 });
    });

    it('rename of a missing field: "field [does_not_exist] doesn\'t exist"; its on_failure runs instead', async () => {
      const [failed] = await simulate(
        [{ rename: { field: 'does_not_exist', target_field: '_value' } }],
        [{ _source: { foo: 'bar' } }],
      );
      expect(failed.error.reason).toBe("field [does_not_exist] doesn't exist");
      const handled = await sourceOf(
        [
          {
            rename: {
              field: 'does_not_exist',
              target_field: 'field2',
              on_failure: [{ set: { field: 'field2', value: '_value' } }],
            },
          },
        ],
        { foo: 'bar' },
      );
      expect(handled).toEqual({ foo: 'bar', field2: '_value' });
    });

    it('on_failure sees the failure in _ingest.on_failure_*; the pipeline on_failure ends the pipeline', async () => {
      const source = await sourceOf(
        [
          {
            rename: {
              tag: 'rename-1',
              field: 'foofield',
              target_field: 'field1',
              on_failure: [
                {
                  set: {
                    field: 'error',
                    value:
                      '{{ _ingest.on_failure_processor_type }}:{{ _ingest.on_failure_processor_tag }}:{{ ' +
                      '_ingest.on_failure_message }}',
                  },
                },
              ],
            },
          },
        ],
        { field1: 'x' },
      );
      expect(source.error).toBe("rename:rename-1:field [foofield] doesn't exist");
      const pipelineLevel = await simulate(
        [{ uppercase: { field: 'missing' } }, { set: { field: 'never', value: 1 } }],
        [{ _source: {} }],
        {
          on_failure: [{ set: { field: 'failed_in', value: '{{_ingest.on_failure_pipeline}}' } }],
        },
      );
      expect(pipelineLevel[0].doc._source).toEqual({ failed_in: '_simulate_pipeline' });
      expect(pipelineLevel[0].doc._ingest).toEqual({ timestamp: expect.stringMatching(TIMESTAMP) });
    });

    it('ignore_failure and ignore_missing', async () => {
      expect(
        await sourceOf(
          [
            { rename: { field: 'x', target_field: 'y', ignore_failure: true } },
            { set: { field: 'after', value: true } },
          ],
          {},
        ),
      ).toEqual({ after: true });
      expect(
        await sourceOf([{ remove: { field: ['user_agent', 'url'], ignore_missing: true } }], { url: 'u', keep: 1 }),
      ).toEqual({ keep: 1 });
      expect(await sourceOf([{ lowercase: { field: 'x', ignore_missing: true } }], {})).toEqual({});
      expect(await sourceOf([{ convert: { field: 'x', type: 'long', ignore_missing: true } }], { x: null })).toEqual({
        x: null,
      });
    });

    it('remove: one field, or several (remove processor docs)', async () => {
      expect(await sourceOf([{ remove: { field: 'user_agent' } }], { user_agent: 'ua', url: 'u' })).toEqual({
        url: 'u',
      });
      expect(
        await sourceOf([{ remove: { field: ['user_agent', 'url'] } }], { user_agent: 'ua', url: 'u', a: 1 }),
      ).toEqual({ a: 1 });
    });

    it('append: values with templates, onto a missing field, a scalar or a list; allow_duplicates false', async () => {
      const appendTags = { append: { field: 'tags', value: ['production', '{{app}}', '{{owner}}'] } };
      expect(await sourceOf([appendTags], { app: 'meter', owner: 'ops' })).toMatchObject({
        tags: ['production', 'meter', 'ops'],
      });
      expect(await sourceOf([appendTags], { app: 'a', owner: 'o', tags: 'existing' })).toMatchObject({
        tags: ['existing', 'production', 'a', 'o'],
      });
      expect(await sourceOf([{ append: { field: 'tags', value: 'x' } }], {})).toEqual({ tags: ['x'] });
      expect(
        await sourceOf([{ append: { field: 'tags', value: ['a', 'c'], allow_duplicates: false } }], {
          tags: ['a', 'b'],
        }),
      ).toEqual({ tags: ['a', 'b', 'c'] });
      expect(await sourceOf([{ append: { field: 'tag', value: 'a', allow_duplicates: false } }], { tag: 'a' })).toEqual(
        { tag: 'a' },
      );
    });

    it('rename: target_field that exists fails unless override', async () => {
      const [failed] = await simulate(
        [{ rename: { field: 'provider', target_field: 'cloud' } }],
        [{ _source: { provider: 'aws', cloud: 'x' } }],
      );
      expect(failed.error.reason).toBe('field [cloud] already exists');
      expect(
        await sourceOf([{ rename: { field: 'provider', target_field: 'cloud.provider' } }], { provider: 'aws' }),
      ).toEqual({ cloud: { provider: 'aws' } });
      expect(
        await sourceOf([{ rename: { field: 'provider', target_field: 'cloud', override: true } }], {
          provider: 'aws',
          cloud: 'x',
        }),
      ).toEqual({ cloud: 'aws' });
    });

    it('convert: every type; auto picks boolean, integer, then float', async () => {
      const convert = (type: string, value: unknown) =>
        sourceOf([{ convert: { field: 'v', type } }], { v: value }).then((s) => s.v);
      expect(await convert('long', '-42')).toBe(-42);
      expect(await convert('integer', '0x1F')).toBe(31);
      expect(await convert('double', ' 1.5 ')).toBe(1.5);
      expect(await convert('float', '3.14159265358')).toBe(3.1415927);
      expect(await convert('string', 5)).toBe('5');
      expect(await convert('string', 1.25)).toBe('1.25');
      expect(await convert('boolean', 'TRUE')).toBe(true);
      expect(await convert('ip', '2001:db8::1')).toBe('2001:db8::1');
      expect(await convert('auto', 'true')).toBe(true);
      expect(await convert('auto', '12')).toBe(12);
      expect(await convert('auto', '242.15')).toBe(242.15);
      expect(await convert('auto', 'text')).toBe('text');
      const [failed] = await simulate([{ convert: { field: 'v', type: 'boolean' } }], [{ _source: { v: 'yes' } }]);
      expect(failed.error.reason).toBe('[yes] is not a boolean value, cannot convert to boolean');
      const [tooBig] = await simulate(
        [{ convert: { field: 'v', type: 'integer' } }],
        [{ _source: { v: '3000000000' } }],
      );
      expect(tooBig.error.reason).toBe('unable to convert [3000000000] to integer');
    });

    it('lowercase and uppercase: lists of strings, target_field; a number is refused by type', async () => {
      expect(await sourceOf([{ uppercase: { field: 'l', target_field: 'u' } }], { l: ['a', 'b'] })).toEqual({
        l: ['a', 'b'],
        u: ['A', 'B'],
      });
      const [failed] = await simulate([{ lowercase: { field: 'n' } }], [{ _source: { n: 5 } }]);
      expect(failed.error.reason).toBe('field [n] of type [java.lang.Integer] cannot be cast to [java.lang.String]');
    });

    it(
      'set: override false, ignore_empty_value, field templates, objects with templates, _source. and _ingest. ' +
        'paths',
      async () => {
        expect(await sourceOf([{ set: { field: 'a', value: 2, override: false } }], { a: 1 })).toEqual({ a: 1 });
        expect(await sourceOf([{ set: { field: 'a', value: 2, override: false } }], { a: null })).toEqual({ a: 2 });
        expect(
          await sourceOf([{ set: { field: 'copy', value: '{{missing}}', ignore_empty_value: true } }], {}),
        ).toEqual({});
        expect(await sourceOf([{ set: { field: 'copy', value: '{{missing}}' } }], {})).toEqual({ copy: '' });
        expect(
          await sourceOf([{ set: { field: 'by_{{kind}}', value: { name: '{{name}}', n: 1 } } }], {
            kind: 'meter',
            name: 'm1',
          }),
        ).toEqual({
          kind: 'meter',
          name: 'm1',
          by_meter: { name: 'm1', n: 1 },
        });
        expect(await sourceOf([{ set: { field: '_source.x', value: '{{_source.y}}' } }], { y: 'v' })).toEqual({
          x: 'v',
          y: 'v',
        });
        const stamped = await sourceOf([{ set: { field: 'received', value: '{{_ingest.timestamp}}' } }], {});
        expect(stamped.received).toMatch(TIMESTAMP);
        const [failed] = await simulate([{ set: { field: 'a.b', value: 1 } }], [{ _source: { a: 'text' } }]);
        expect(failed.error.reason).toBe(
          'cannot set [b] with parent object of type [java.lang.String] as part of path [a.b]',
        );
      },
    );

    it(
      'templates: {{x}} escapes for JSON by default, {{{x}}} does not; media_type text/plain (search engine ' +
        'issue 71359)',
      async () => {
        const source = await sourceOf(
          [
            { set: { field: 'escaped', value: '{{bar}}' } },
            { set: { field: 'raw', value: '{{{bar}}}' } },
            { set: { field: 'plain', value: '{{bar}}', media_type: 'text/plain' } },
            { set: { field: 'form', value: '{{q}}', media_type: 'application/x-www-form-urlencoded' } },
          ],
          { bar: '\\"', q: 'a b&c' },
        );
        expect(source).toMatchObject({ escaped: '\\\\\\"', raw: '\\"', plain: '\\"', form: 'a+b%26c' });
      },
    );

    it(
      'if: a processor runs only where its condition holds (conditional processor test, null-safe ' + 'access)',
      async () => {
        const conditional = { set: { if: "ctx.conditional_field == 'bar'", field: 'target', value: 'set' } };
        expect(await sourceOf([conditional], { conditional_field: 'bar' })).toEqual({
          conditional_field: 'bar',
          target: 'set',
        });
        expect(await sourceOf([conditional], { conditional_field: 'foo' })).toEqual({ conditional_field: 'foo' });
        const guest = { set: { if: "ctx?.network?.name == 'Guest'", field: 'guest', value: true } };
        expect(await sourceOf([guest], { network: { name: 'Guest' } })).toEqual({
          network: { name: 'Guest' },
          guest: true,
        });
        expect(await sourceOf([guest], {})).toEqual({});
        const [notBoolean] = await simulate(
          [{ set: { if: 'ctx.a', field: 'b', value: 1 } }],
          [{ _source: { a: 'yes' } }],
        );
        expect(notBoolean.error.reason).toMatch(/if condition must answer true or false/);
        const [writes] = await simulate(
          [{ set: { if: "ctx.a = 'changed'; return true", field: 'b', value: 1 } }],
          [{ _source: { a: 'x' } }],
        );
        expect(writes.error.caused_by).toMatchObject({ type: 'unsupported_operation_exception' });
      },
    );
  });
});
