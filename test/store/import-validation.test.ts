import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { assertBuilt, cli } from './emulator-process.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-import-validation-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

type State = {
  schemaVersion: number;
  counters: Record<string, unknown>;
  collections: Record<string, Record<string, any>>;
};

describe('a state import (PUT /_emu/state)', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  let exported: State;
  beforeAll(async () => {
    exported = (await call('GET', '/_emu/state')).body;
  });

  /** The exported state with one change; the import must be refused with 400 naming `pattern`, and change nothing. */
  async function refused(change: (state: State) => void, pattern: RegExp): Promise<void> {
    const before = (await call('GET', '/_emu/state')).body;
    const state = structuredClone(exported);
    change(state);
    const response = await call('PUT', '/_emu/state', { body: state });
    expect(response.status, response.text).toBe(400);
    expect(response.body.message).toMatch(pattern);
    expect((await call('GET', '/_emu/state')).body).toEqual(before);
  }

  const filter = (state: State) => state.collections['endpoint-filters']['smart-meter/berlin-meters'];

  it('refuses a filter whose operator or operand cannot be evaluated, naming the record', async () => {
    await refused(
      (s) => (filter(s).match = { model: { $regex: '(' } }),
      new RegExp(
        String.raw`collections\.endpoint-filters\["smart-meter\/berlin-meters"\]: ` +
          String.raw`match\.model\.\$regex is not a valid regular expression`,
      ),
    );
    await refused(
      (s) => delete filter(s).match,
      /collections\.endpoint-filters\["smart-meter\/berlin-meters"\]: match is required/,
    );
    await refused((s) => (filter(s).match = { model: { $in: 'SM-100' } }), /match\.model\.\$in must be an array/);
    await refused(
      (s) => (filter(s).match = { model: { $exists: 'yes' } }),
      /match\.model\.\$exists must be true or false/,
    );
    await refused(
      (s) => (filter(s).match = { firmware: { $gt: { major: 1 } } }),
      /match\.firmware\.\$gt must be a number or a string/,
    );
    await refused((s) => (filter(s).status = 'ON'), /status must be one of "ACTIVE", "INACTIVE"/);
    // A filter is evaluated when endpoints are read: nothing above may have reached the state.
    expect((await call('GET', '/epr/api/v1/endpoints?include=filters')).status).toBe(200);
  });

  it('refuses counters that are not integers (command ids would become "x1")', async () => {
    await refused((s) => (s.counters.commands = 'x'), /counters\.commands must be a non-negative integer; got "x"/);
    await refused((s) => (s.counters.commands = 1.5), /counters\.commands must be a non-negative integer/);
    const invoked = await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', { body: {} });
    expect(invoked.status).toBe(202);
    expect(Number.isInteger(invoked.body.commandId)).toBe(true);
  });

  it('refuses records that break their collection schema or the rules across records', async () => {
    await refused(
      (s) => (s.collections.endpoints['meter-001'] = null),
      /collections\.endpoints\["meter-001"\] must be a JSON object; got null/,
    );
    await refused(
      (s) => (s.collections.endpoints = 5 as never),
      /collections\.endpoints must be an object of records by id; got 5/,
    );
    await refused(
      (s) => (s.collections.endpoints['meter-002'].token = s.collections.endpoints['meter-001'].token),
      /collections\.endpoints\["meter-002"\].*token.*meter-001/,
    );
    await refused(
      (s) => (s.collections.endpoints['meter-001'].token = 'a/b'),
      /collections\.endpoints\["meter-001"\]: token must match pattern/,
    );
    await refused(
      (s) => delete s.collections.endpoints['meter-001'].appVersion,
      /collections\.endpoints\["meter-001"\].*appVersion/,
    );
    await refused(
      (s) => (s.collections.endpoints['meter-001'].metadata = [1, 2]),
      /collections\.endpoints\["meter-001"\]: metadata must be a JSON object/,
    );
    await refused(
      (s) => (s.collections.applications['smart-meter'].createdDate = 'yesterday'),
      /collections\.applications\["smart-meter"\]: createdDate must match pattern/,
    );
    await refused(
      (s) =>
        (s.collections['realm-users'] = {
          'acme/x': { tenantId: 'acme', username: 'x', passwordHash: 'scrypt$16384$8$1$abc$def', scopes: 'some' },
        }),
      /collections\.realm-users\["acme\/x"\]: scopes/,
    );
  });

  it(
    'refuses password hashes whose scrypt parameters a login cannot afford (N above 2^15, r above 8, p above ' + '2)',
    async () => {
      const user = (passwordHash: string) => (s: State) =>
        (s.collections['realm-users'] = { 'acme/x': { tenantId: 'acme', username: 'x', passwordHash } });
      for (const hash of [
        'scrypt$1048576$8$1$abc$def',
        'scrypt$65536$8$1$abc$def',
        'scrypt$16384$32$1$abc$def',
        'scrypt$16384$8$16$abc$def',
        'scrypt$1000$8$1$abc$def',
      ]) {
        await refused(user(hash), /collections\.realm-users\["acme\/x"\]: passwordHash must match pattern/);
      }
    },
  );

  it('takes an endpoint without metadata as one with {}', async () => {
    const state = structuredClone(exported);
    delete state.collections.endpoints['meter-001'].metadata;
    expect((await call('PUT', '/_emu/state', { body: state })).status).toBe(204);
    const endpoint = await call('GET', '/epr/api/v1/endpoints/meter-001?include=metadata,filters');
    expect(endpoint.status).toBe(200);
    expect(endpoint.body).toMatchObject({ metadata: {}, filters: [] });
    expect((await call('GET', '/_emu/state')).body.collections.endpoints['meter-001'].metadata).toEqual({});
    expect((await call('GET', '/epr/api/v1/endpoints?filterId=berlin-meters')).status).toBe(200);
  });

  it('refuses a fixture file whose filter cannot be evaluated', async () => {
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'));
    fixture.endpointFilters[0].match = { model: { $regex: '[' } };
    const response = await call('PUT', '/_emu/state', { body: fixture });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(
      /endpointFilters\[0\] \(berlin-meters\): match\.model\.\$regex is not a valid regular expression/,
    );
  });
});

describe('platform-emu fixtures import on a stopped directory', () => {
  beforeAll(assertBuilt);

  it('refuses counters that are not integers and leaves the directory as it was', async () => {
    const dir = freshDir();
    await (await startEmulator({ port: 0, mqttPort: 0, dataDir: dir, log: () => undefined })).stop();
    const before = readFileSync(join(dir, 'state.json'), 'utf8');
    const document = JSON.parse(before);
    document.counters.commands = 'x';
    const file = join(root, `${dirs}-bad-counters.json`);
    writeFileSync(file, JSON.stringify(document));
    const result = await cli(['fixtures', 'import', file, '--data', dir]);
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toMatch(/counters\.commands must be a non-negative integer; got "x"/);
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe(before);
  });
});

describe('a hand-edited state.json', () => {
  /**
   * Starts on a directory holding this state.json; the start must fail, naming the file and `pattern`, and leave the
   * file.
   */
  async function refusedStart(state: unknown, pattern: RegExp): Promise<void> {
    const dir = freshDir();
    mkdirSync(dir);
    const text = JSON.stringify(state);
    writeFileSync(join(dir, 'state.json'), text);
    const error = await startEmulator({ port: 0, mqttPort: 0, dataDir: dir, log: () => undefined }).then(
      async (emulator) => {
        await emulator.stop();
        return new Error('the emulator started');
      },
      (err: Error) => err,
    );
    expect(error.message).toContain(join(dir, 'state.json'));
    expect(error.message).toMatch(pattern);
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe(text);
  }

  const document = (collections: unknown, counters: unknown = {}) => ({
    schemaVersion: 1,
    seq: 0,
    counters,
    collections,
  });

  it('stops the start when a collection is not an object of records, naming the file and the path', async () => {
    await refusedStart(document({ endpoints: 5 }), /collections\.endpoints must be an object of records by id; got 5/);
    await refusedStart(
      document({ endpoints: [{ endpointId: 'a' }] }),
      /collections\.endpoints must be an object of records by id; got an array/,
    );
    await refusedStart(document([]), /collections must be an object of collections by name; got an array/);
  });

  it('stops the start on a null record, a __proto__ id or a counter that is not an integer', async () => {
    await refusedStart(
      document({ endpoints: { 'meter-001': null } }),
      /collections\.endpoints\["meter-001"\] must be a JSON object; got null/,
    );
    await refusedStart(
      JSON.parse('{"schemaVersion":1,"seq":0,"collections":{"endpoints":{"__proto__":{"a":1}}}}'),
      /"__proto__" cannot be the id of a record/,
    );
    await refusedStart(document({}, { commands: 'x' }), /counters\.commands must be a non-negative integer/);
  });
});
