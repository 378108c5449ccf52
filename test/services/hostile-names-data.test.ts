import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

/** Every property name of Object.prototype, and `__proto__`: each an ordinary name wherever user data names a key. */
const NAMES = Object.getOwnPropertyNames(Object.prototype);
/** A JSON object with one own property of that name (an object literal would set the prototype for `__proto__`). */
const own = (name: string, value: unknown) => JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(value)}}`);
const pristine = () => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual([...NAMES].sort());
  expect(({} as Record<string, unknown>).x).toBeUndefined();
};

describe('names of Object.prototype in binary data, software, configurations and pipelines', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('as file names (bcx): uploaded, listed and read back', async () => {
    const token = await call('POST', '/kp1/smart-meter-v1/bcx/meter-001-token/token');
    expect(token.status, token.text).toBe(200);
    for (const name of NAMES) {
      const sent = await call('POST', `/bcx/api/v1/files/${name}`, {
        rawBody: `content of ${name}`,
        headers: { 'content-type': 'application/octet-stream', 'x-auth-token': token.body.token },
      });
      expect(sent.status, `${name}: ${sent.text}`).toBe(204);
      const read = await call('GET', `/bcx/api/v1/applications/smart-meter/endpoints/meter-001/files/${name}/data`);
      expect(read.status, name).toBe(200);
      expect(read.text, name).toBe(`content of ${name}`);
    }
    const listed = await call('GET', '/bcx/api/v1/applications/smart-meter/files?endpointId=meter-001');
    expect(listed.status, listed.text).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('"__proto__"');
    pristine();
  });

  it('as software versions, metadata keys and specification keys (otao)', async () => {
    for (const name of NAMES) {
      // A prerelease identifier is letters, digits and `-`: the names with `_` are not versions (400, like any such).
      const version = `9.0.0-${name}`;
      const made = await call('POST', `/otao/api/v1/applications/smart-meter/software/${version}`, {
        body: { metadata: own(name, name), specification: own(name, 1) },
      });
      expect(made.status, `${name}: ${made.text}`).toBe(/^[a-zA-Z0-9-]+$/.test(name) ? 201 : 400);
      if (made.status !== 201) continue;
      const read = await call('GET', `/otao/api/v1/applications/smart-meter/software/${version}`);
      expect(read.status, name).toBe(200);
      expect(read.body.metadata, name).toEqual(own(name, name));
    }
    const listed = await call('GET', '/otao/api/v1/applications/smart-meter/software');
    expect(listed.status, listed.text).toBe(200);
    pristine();
  });

  it('as application configuration keys and JSON Patch paths (tekton)', async () => {
    const config = '/tekton/api/v1/app-configs/applications/tracker/app-versions/tracker-v1';
    const put = await call('PUT', config, {
      rawBody: `{${NAMES.map((n, i) => `"${n}":{"n":${i}}`).join(',')}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status, put.text).toBe(204);
    const whole = Object.fromEntries(NAMES.map((n, i) => [n, { n: i }]));
    expect(JSON.stringify((await call('GET', config)).body)).toBe(JSON.stringify(whole));
    const patch = (ops: unknown[]) => call('PATCH', config, { body: ops });
    for (const [i, name] of NAMES.entries()) {
      const changed = await patch([
        { op: 'test', path: `/${name}/n`, value: i },
        { op: 'replace', path: `/${name}/n`, value: -i },
        { op: 'add', path: `/${name}/${name}`, value: name },
      ]);
      expect(changed.status, `${name}: ${changed.text}`).toBe(204);
      const read = (await call('GET', config)).body;
      expect(Object.hasOwn(read, name) && JSON.stringify(read[name]), name).toBe(
        JSON.stringify({ n: -i, [name]: name }),
      );
    }
    // Names the document does not hold are missing, whatever Object.prototype has: 404, nothing changed.
    await call('PUT', config, { body: { kept: true } });
    for (const name of NAMES) {
      for (const ops of [
        [{ op: 'replace', path: `/${name}`, value: 1 }],
        [{ op: 'remove', path: `/${name}` }],
        [{ op: 'add', path: `/${name}/x`, value: 1 }],
        [{ op: 'copy', from: `/${name}`, path: '/copied' }],
        [{ op: 'move', from: `/${name}`, path: '/moved' }],
        [{ op: 'add', path: `/constructor/prototype/${name}`, value: 1 }],
      ]) {
        const refused = await patch(ops);
        expect(refused.status, `${JSON.stringify(ops)}: ${refused.text}`).toBe(404);
      }
      const tested = await patch([{ op: 'test', path: `/${name}`, value: null }]);
      expect(tested.status, `${name}: ${tested.text}`).toBeGreaterThanOrEqual(400);
      expect(tested.status, `${name}: ${tested.text}`).toBeLessThan(500);
    }
    expect((await call('GET', config)).body).toEqual({ kept: true });
    pristine();
  });

  it('as pipeline ids, processor fields and script params (asf)', async () => {
    for (const name of NAMES) {
      const id = name.toLowerCase();
      const definition = {
        description: name,
        processors: [
          { set: { field: name, value: name } },
          { script: { source: `ctx.n = params[${JSON.stringify(name)}]`, params: own(name, 7) } },
        ],
      };
      const put = await call('PUT', `/asf/api/v1/_ingest/pipeline/${id}`, { body: definition });
      expect(put.status, `${name}: ${put.text}`).toBe(200);
      const read = await call('GET', `/asf/api/v1/_ingest/pipeline/${id}`);
      expect(read.status, name).toBe(200);
      expect(Object.keys(read.body), name).toEqual([`acme-${id}`]);
      const simulated = await call('POST', `/asf/api/v1/_ingest/pipeline/simulate/${id}`, {
        body: { docs: [{ _source: own(name, 'before') }] },
      });
      expect(simulated.status, `${name}: ${simulated.text}`).toBe(200);
      const source = simulated.body.docs[0].doc._source;
      expect(Object.hasOwn(source, name) && source[name], name).toBe(name);
      expect(source.n, name).toBe(7);
      // Field paths through an object of that name: templates, rename, append and script map access.
      const nested = await call('POST', '/asf/api/v1/_ingest/pipeline/simulate/', {
        body: {
          pipeline: {
            processors: [
              { set: { field: `${name}.inner`, value: `{{${name}.x}}` } },
              { rename: { field: 'kept', target_field: `${name}.moved` } },
              { append: { field: `${name}.list`, value: [name] } },
              { script: { source: `ctx['${name}'].s = ctx.containsKey('${name}')` } },
            ],
          },
          docs: [{ _source: { kept: 1, ...own(name, { x: 'X' }) } }],
        },
      });
      expect(nested.status, `${name}: ${nested.text}`).toBe(200);
      expect(JSON.stringify(nested.body.docs[0].doc._source), name).toBe(
        JSON.stringify(own(name, { x: 'X', inner: 'X', moved: 1, list: [name], s: true })),
      );
    }
    pristine();
  });

  it('as series ids of an imported state: exported as they were imported', async () => {
    const state = (await call('GET', '/_emu/state')).body;
    const series = Object.fromEntries(NAMES.map((name, i) => [name, { t: [1704067200000], v: [i] }]));
    state.series = { 'time-series-points': series };
    const put = await call('PUT', '/_emu/state', {
      rawBody: JSON.stringify(state),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status, put.text).toBe(204);
    const exported = (await call('GET', '/_emu/state')).body.series;
    expect(JSON.stringify(exported)).toBe(JSON.stringify({ 'time-series-points': series }));
    pristine();
  });
});
