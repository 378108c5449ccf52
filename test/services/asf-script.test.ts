import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

/** The script interpreter, through the inline simulation (`POST /_ingest/pipeline/simulate/`). */
describe('analytics facade: scripts', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const SIMULATE = '/asf/api/v1/_ingest/pipeline/simulate/';
  const run = (source: string, doc: Record<string, unknown> = {}, params?: Record<string, unknown>) =>
    call('POST', SIMULATE, {
      body: {
        pipeline: { processors: [{ script: { source, ...(params ? { params } : {}) } }] },
        docs: [{ _source: doc }],
      },
    });
  /** The document's source after the script. */
  const after = async (source: string, doc: Record<string, unknown> = {}, params?: Record<string, unknown>) => {
    const response = await run(source, doc, params);
    expect(response.status, response.text).toBe(200);
    expect(response.body.docs[0].doc, JSON.stringify(response.body.docs[0])).toBeDefined();
    return response.body.docs[0].doc._source;
  };
  /** The document's error after the script: its cause's type and reason. */
  const failure = async (source: string, doc: Record<string, unknown> = {}) => {
    const response = await run(source, doc);
    expect(response.status, response.text).toBe(200);
    const error = response.body.docs[0].error;
    expect(error, JSON.stringify(response.body)).toBeDefined();
    expect(error.type).toBe('script_exception');
    return error.caused_by as { type: string; reason: string };
  };
  /** The 400 a script the emulator refuses gets. */
  const refused = async (source: string) => {
    const response = await run(source);
    expect(response.status, response.text).toBe(400);
    return response.body.message as string;
  };

  describe('arithmetic as Java does it', () => {
    it.each([
      ['ctx.r = 7 / 2', 3],
      ['ctx.r = 7 / 2.0', 3.5],
      ['ctx.r = -7 / 2', -3],
      ['ctx.r = -7 % 3', -1],
      ['ctx.r = 2 + 3 * 4 - (1 + 1)', 12],
      ['ctx.r = 2147483647 + 1', -2147483648],
      ['ctx.r = 2147483647L + 1', 2147483648],
      ['ctx.r = 1.5 * 2', 3],
      ['ctx.r = 022 + 0x1F', 49],
      ['ctx.r = 2f / 4', 0.5],
      ['ctx.r = (int) 3.99', 3],
      ['ctx.r = (double) 3 / 2', 1.5],
      ['double d = 5; ctx.r = d / 2', 2.5],
      ['int i = 10; i += 2.7; ctx.r = i', 12],
      ['ctx.r = Math.max(3, 9) + Math.abs(-2)', 11],
      ['ctx.r = ctx.a / 2', 2],
      ['ctx.r = ctx.b / 2', 1.25],
    ])('%s', async (source, expected) => {
      expect((await after(source, { a: 5, b: 2.5 })).r).toBe(expected);
    });

    it('division by zero of integers fails the document', async () => {
      expect(await failure('ctx.r = 1 / 0')).toEqual({ type: 'arithmetic_exception', reason: '/ by zero' });
    });
  });

  describe('strings', () => {
    it.each([
      ["ctx.r = 'a' + 1 + 2", 'a12'],
      ["ctx.r = 1 + 2 + 'a'", '3a'],
      ["ctx.r = 'x' + 1.0", 'x1.0'],
      ["ctx.r = 'x' + 1e10", 'x1.0E10'],
      ["ctx.r = 'x' + null + true", 'xnulltrue'],
      ["ctx.r = 'n=' + ctx.n", 'n=5'],
      ["ctx.r = ctx.name.toUpperCase() + '/' + ctx.name.length()", 'METER/5'],
      ["ctx.r = ctx.name.contains('ete') && ctx.name.startsWith('m')", true],
      ["ctx.r = ctx.name.substring(1, 3) + ctx.name.replace('e', '3')", 'etm3t3r'],
      ['ctx.r = "double \\"quoted\\" \\\\" + \'single \\\'quoted\\\'\'', 'double "quoted" \\single \'quoted\''],
      ["ctx.r = String.join('-', ['a', 'b']) + String.valueOf(2)", 'a-b2'],
      ["ctx.r = Integer.parseInt('42') + 1", 43],
      // A no-break space is not blank to Java's trim; a tab is.
      ["ctx.r = '\u00a0x \t'.trim() + '|'", '\u00a0x|'],
      ["Map m = ['k': 1]; m.replace('k', 2); m.replace('absent', 3); ctx.r = m", { k: 2 }],
      ['ctx.r = [1, 2, 1].lastIndexOf(1) + [1, 2, 1].indexOf(1)', 2],
    ])('%s', async (source, expected) => {
      expect((await after(source, { n: 5, name: 'meter' })).r).toEqual(expected);
    });
  });

  describe('fields of ctx, comparisons, branches, loops', () => {
    it('reads and writes nested fields, by name and by index; lists with negative indexes', async () => {
      const source = await after(
        "ctx.out = ctx.a.b + ctx['c d'] + ctx.list[-1]; ctx.a.b = 'changed'; ctx.list[0] = 'first'; ctx['new " +
          "field'] = [:]",
        {
          a: { b: 'B' },
          'c d': 'C',
          list: ['x', 'y', 'z'],
        },
      );
      expect(source).toEqual({
        a: { b: 'changed' },
        'c d': 'C',
        list: ['first', 'y', 'z'],
        out: 'BCz',
        'new field': {},
      });
    });

    it('if / else, ternary, elvis, null-safe access, comparisons', async () => {
      const source = await after(
        "if (ctx.t > 30) { ctx.level = 'hot' } else if (ctx.t >= 10) { ctx.level = 'mild' } else { ctx.level " +
          "= 'cold' } ctx.even = ctx.t % 2 == 0 ? 'yes' : 'no'; ctx.owner = ctx.owner ?: 'nobody'; ctx.city = " +
          "ctx.site?.city; ctx.eq = 1 == 1.0 && 'a' != 'b' && !(2 < 1)",
        { t: 21 },
      );
      expect(source).toEqual({ t: 21, level: 'mild', even: 'no', owner: 'nobody', city: null, eq: true });
    });

    it('for, while with break and continue, for-each over a list; declarations and maps and lists', async () => {
      const source = await after(
        'int sum = 0; for (int i = 1; i <= 10; i++) { if (i == 5) { continue } sum += i } ctx.sum = sum; def ' +
          'n = 0; while (true) { n++; if (n > 3) break; } ctx.n = n; List upper = new ArrayList(); for (def s ' +
          ": ctx.tags) { upper.add(s.toUpperCase()) } ctx.upper = upper; Map m = ['k': 1]; m.put('j', 2); " +
          "m.remove('k'); ctx.m = m; ctx.keys = ctx.m.keySet(); ctx.has = ctx.containsKey('tags') && " +
          "!ctx.containsKey('nope'); ctx.size = ctx.tags.size()",
        { tags: ['a', 'b'] },
      );
      expect(source).toEqual({
        tags: ['a', 'b'],
        sum: 50,
        n: 4,
        upper: ['A', 'B'],
        m: { j: 2 },
        keys: ['j'],
        has: true,
        size: 2,
      });
    });

    it('params are readable', async () => {
      expect((await after('ctx.r = params.factor * 2 + params.unit', {}, { factor: 21, unit: 'x' })).r).toBe('42x');
    });

    it('runtime errors fail the document with their Java type', async () => {
      expect((await failure('ctx.r = ctx.missing.field')).type).toBe('null_pointer_exception');
      expect((await failure('ctx.missing.field = 1')).type).toBe('null_pointer_exception');
      expect((await failure('ctx.r = ctx.s - 1', { s: 'text' })).reason).toBe(
        'cannot apply [-] to types [java.lang.String] and [java.lang.Integer]',
      );
      expect((await failure('int i = 1.5')).type).toBe('class_cast_exception');
      expect((await failure('ctx.r = ctx.l[5]', { l: [1] })).type).toBe('index_out_of_bounds_exception');
      expect((await failure('if (ctx.s) { ctx.r = 1 }', { s: 'x' })).type).toBe('class_cast_exception');
      expect((await failure('ctx.r = ctx.s.size()', { s: 'x' })).reason).toBe(
        'dynamic method [java.lang.String, size/0] not found',
      );
      // An overload the subset lacks is an error, never a call that drops an argument.
      expect((await failure("ctx.r = ctx.s.indexOf('x', 1)", { s: 'x' })).reason).toBe(
        'dynamic method [java.lang.String, indexOf/2] not found',
      );
      expect((await failure('for (def x : ctx.l) { ctx.l.add(1) }', { l: [1] })).type).toBe(
        'concurrent_modification_exception',
      );
    });

    it('a failing script fails its document only', async () => {
      const response = await call('POST', SIMULATE, {
        body: {
          pipeline: { processors: [{ script: { source: 'ctx.r = ctx.v.length()' } }] },
          docs: [{ _source: { v: 'abc' } }, { _source: {} }],
        },
      });
      expect(response.body.docs[0].doc._source.r).toBe(3);
      expect(response.body.docs[1].error.caused_by.type).toBe('null_pointer_exception');
    });
  });

  describe('what the subset refuses before running (400 naming it)', () => {
    it.each([
      ['ctx.r = ctx.list.stream().map(x -> x)', /the operator -> is not supported/],
      ['ctx.r = ctx.a & 1', /the operator & is not supported/],
      ['ctx.r = ctx.a =~ /x/', /the operator =~ is not supported/],
      ['ctx.r = ctx.a === 1', /identity operator === is not supported/],
      ['ctx.r = new Date()', /new Date\(\) is not supported/],
      ['ctx.r = ctx.getClass()', /the method getClass\(\) is not supported/],
      ['ctx.r = Math.random()', /Math.random\(\) is not supported/],
      ['ctx.r = Math.max(1)', /Math.max\(\) takes 2 argument\(s\)/],
      ["ctx.r = Integer.parseInt('ff', 16)", /Integer.parseInt\(\) takes 1 argument\(s\)/],
      ['try { ctx.a = 1 } catch (Exception e) {}', /"try" is not supported/],
      ['do { ctx.a = 1 } while (false)', /"do" is not supported/],
      ['int twice(int x) { return x * 2 } ctx.r = twice(2)', /defining functions is not supported/],
      ['ctx.r = undefinedVariable', /cannot resolve symbol \[undefinedVariable\]/],
      ['ctx.r = process.exit(1)', /cannot resolve symbol \[process\]/],
      ["ctx.r = eval('1')", /cannot resolve symbol \[eval\]/],
      ['ctx.r = Function', /cannot resolve symbol \[Function\]/],
      ["ctx.r = 'unclosed", /a string literal is not closed/],
      ["ctx.r = 'line\\nbreak'", /the escape \\n is not one of Painless's/],
      ['ctx.r = 09', /malformed number 09/],
      ['ctx.r = 1.5L', /malformed number 1.5L/],
      ['ctx.r = 99999999999', /the int 99999999999 is out of range/],
      ['def x = 1; def x = 2', /variable \[x\] is already defined/],
      ['ctx.r = (1', /expected \) but found the end of the script/],
    ])('%s', async (source, message) => {
      const text = await refused(source);
      expect(text).toMatch(/^Invalid pipeline: processors\[0\] \(script\): \[source\] cannot be compiled: /);
      expect(text).toMatch(message);
    });

    it('other languages and stored scripts', async () => {
      const lang = await call('POST', SIMULATE, {
        body: { pipeline: { processors: [{ script: { lang: 'expression', source: '1' } }] }, docs: [{ _source: {} }] },
      });
      expect(lang.body.message).toMatch(/lang \[expression\] is not supported/);
      const stored = await call('POST', SIMULATE, {
        body: { pipeline: { processors: [{ script: { id: 'my-script' } }] }, docs: [{ _source: {} }] },
      });
      expect(stored.body.message).toMatch(/stored scripts \(id\) are not supported/);
    });
  });

  describe('hostile scripts stop without harm', () => {
    it('an endless loop stops at the loop limit (or the time limit, on a slow machine)', async () => {
      const limits = new RegExp(
        String.raw`^(The maximum number of statements that can be executed in a loop has been ` +
          String.raw`reached\.|the simulation took longer than 1000 ms, the emulator's limit)$`,
      );
      for (const source of ['while (true) {}', 'for (;;) { ctx.x = 1 }', 'int i = 0; while (i >= 0) { i = 1 }']) {
        const cause = await failure(source);
        expect(cause.type).toBe('circuit_breaking_exception');
        expect(cause.reason).toMatch(limits);
      }
      // Nested loops count together.
      expect((await failure('for (int i = 0; i < 2000; i++) { for (int j = 0; j < 2000; j++) {} }')).type).toBe(
        'circuit_breaking_exception',
      );
      // Four runs of up to a second of CPU each (the budget is CPU time): a busy machine stretches them past 30 s.
    }, 60_000);

    it('strings and collections cannot grow without bound', async () => {
      expect((await failure("String s = 'x'; while (true) { s = s + s }")).reason).toMatch(
        /a string grew longer than 1000000 characters/,
      );
      expect((await failure('def l = [1]; while (true) { l.addAll(l) }')).reason).toMatch(
        /a list or map grew past 100000 elements, the emulator's limit/,
      );
    });

    it('processors share the memory limit: copying a large field again and again stops', async () => {
      const processors = Array.from({ length: 100 }, () => ({ set: { field: 'copy', copy_from: 'big' } }));
      const response = await call('POST', SIMULATE, {
        // A long string costs its length at each copy and almost no time: the memory limit comes first at any speed.
        body: { pipeline: { processors }, docs: [{ _source: { big: 'x'.repeat(700_000) } }] },
      });
      expect(response.body.docs[0].error).toMatchObject({
        type: 'circuit_breaking_exception',
        reason: expect.stringMatching(/memory limit/),
        processor_type: 'set',
      });
    });

    it('prototype names are plain fields: nothing reaches an object prototype', async () => {
      const source = await after(
        "ctx.viaProto = ctx.__proto__; ctx.viaConstructor = ctx.constructor; ctx['__proto__'] = 'a field'; " +
          "ctx.nested = [:]; ctx.nested.__proto__ = 'also a field'; ctx.prototype = params.__proto__",
        {},
        {},
      );
      // Computed keys: `{ __proto__: ... }` in a literal would set the literal's prototype instead.
      expect(source).toEqual({
        viaProto: null,
        viaConstructor: null,
        ['__proto__']: 'a field',
        nested: { ['__proto__']: 'also a field' },
        prototype: null,
      });
      expect((await failure("ctx.__proto__.polluted = 'yes'")).type).toBe('null_pointer_exception');
      expect(await refused("ctx.constructor.constructor('return process')")).toMatch(
        /the method constructor\(\) is not supported/,
      );
      const fromDocument = await after("ctx.__proto__.polluted = 'yes'", JSON.parse('{"__proto__": {"inner": 1}}'));
      expect(Object.hasOwn(fromDocument, '__proto__')).toBe(true);
      expect(fromDocument.__proto__).toEqual({ inner: 1, polluted: 'yes' });
      const set = await call('POST', SIMULATE, {
        body: {
          pipeline: {
            processors: [
              { set: { field: '__proto__.polluted', value: 'yes' } },
              { set: { field: 'constructor.prototype.polluted', value: 'yes' } },
            ],
          },
          docs: [{ _source: {} }],
        },
      });
      expect(set.text).toContain('"__proto__":{"polluted":"yes"}');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });

    it('a document that contains itself cannot be written', async () => {
      const [result] = (await run('ctx.foo = ctx')).body.docs;
      expect(result.error).toMatchObject({
        type: 'illegal_argument_exception',
        reason: expect.stringMatching(/contains itself/),
      });
    });

    it('nesting too deep and sources too long are refused', async () => {
      expect(await refused(`ctx.r = ${'('.repeat(5000)}1${')'.repeat(5000)}`)).toMatch(/nests deeper than 200 levels/);
      expect(await refused(`ctx.r = 1;${' '.repeat(70_000)}`)).toMatch(/longer than 65535 characters/);
    });
  });
});
