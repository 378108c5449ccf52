import { describe, expect, it } from 'vitest';
import { inlineSimulation, TIMESTAMP } from '../helpers/asf.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('analytics facade', async () => {
  const emulator = await startTestEmulator();
  const { simulate, sourceOf } = inlineSimulation(api(emulator));

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
  });
});
