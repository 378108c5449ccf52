import { describe, expect, it } from 'vitest';
import { inlineSimulation, TIMESTAMP } from '../helpers/asf.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

describe('analytics facade', async () => {
  const emulator = await startTestEmulator();
  const { simulate, sourceOf } = inlineSimulation(api(emulator));

  describe("the search engine's documented examples give the same documents", () => {
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
