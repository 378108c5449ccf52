import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/index.js';
import { Store, StoreError } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'platform-emu-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

const STATE = 'state.json';
const LOG = 'mutations.jsonl';
const LOCK = 'emulator.lock';

function openStore(dir: string, extra: { compactBytes?: number; readOnly?: boolean } = {}) {
  const warnings: string[] = [];
  const opening = Store.open({ dir, warn: (m) => warnings.push(m), ...extra });
  return { opening, warnings };
}

/** What a kill -9 would leave: the files of a live store as they are on disk now, in a directory of their own. */
function crashCopy(dir: string): string {
  const copy = freshDir();
  mkdirSync(copy);
  for (const file of [STATE, LOG]) if (existsSync(join(dir, file))) copyFileSync(join(dir, file), join(copy, file));
  return copy;
}

function logLine(s: number, id: string, extra = {}): string {
  return `${JSON.stringify({ s, m: [{ op: 'put', c: 'things', id, v: { id, ...extra } }] })}\n`;
}

function filesOf(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

/** The start of an emulator on `dir`, which must fail: the message, and the warnings logged before it. */
async function failedStart(dir: string): Promise<string> {
  const started = startEmulator({ port: 0, mqttPort: 0, dataDir: dir, fixtures: 'none', log: () => undefined });
  const error = await started.then(
    async (emulator) => {
      await emulator.stop();
      throw new Error('the emulator started');
    },
    (err: Error) => err,
  );
  return error.message;
}

describe('the mutation log', () => {
  it('drops a torn last line with a warning and appends after the good ones', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    const good = logLine(1, 'a') + logLine(2, 'b');
    writeFileSync(join(dir, LOG), `${good}{"s":3,"m":[{"op":"put","c":"thi`);

    const { opening, warnings } = openStore(dir);
    const store = await opening;
    expect(warnings.join('\n')).toMatch(new RegExp(`torn last line of .*${LOG} \\(line 3\\)`));
    expect([...store.values('things')].map((t) => t.id)).toEqual(['a', 'b']);
    expect(readFileSync(join(dir, LOG), 'utf8')).toBe(good);

    await store.put('things', 'c', { id: 'c' });
    const reopened = await openStore(crashCopy(dir)).opening;
    expect([...reopened.values('things')].map((t) => t.id)).toEqual(['a', 'b', 'c']);
    await Promise.all([store.close(), reopened.close()]);
  });

  it(
    'treats a complete last line without its newline as torn (its write never finished, so it was never ' +
      'acknowledged)',
    async () => {
      const dir = freshDir();
      mkdirSync(dir);
      writeFileSync(join(dir, LOG), logLine(1, 'a') + logLine(2, 'b').trimEnd());
      const { opening, warnings } = openStore(dir);
      const store = await opening;
      expect(warnings).toHaveLength(1);
      expect(store.has('things', 'b')).toBe(false);
      await store.put('things', 'c', { id: 'c' });
      expect(
        readFileSync(join(dir, LOG), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).s),
      ).toEqual([1, 2]);
      await store.close();
    },
  );

  it('leaves a torn line alone, without a warning, when the directory is only read (token, fixtures export)', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    const text = `${logLine(1, 'a')}{"s":2`;
    writeFileSync(join(dir, LOG), text);
    const { opening, warnings } = openStore(dir, { readOnly: true });
    const store = await opening;
    // Most often an append of the emulator running beside the reader, half written: nothing to alarm anyone about.
    expect(warnings).toEqual([]);
    expect(store.has('things', 'a')).toBe(true);
    await store.close();
    expect(readFileSync(join(dir, LOG), 'utf8')).toBe(text);
  });

  it('stops the start on an unreadable middle line, naming the file and the line, and touches nothing', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, LOG), `${logLine(1, 'a')}{"s":2,"m":[}\n${logLine(3, 'c')}`);
    const before = filesOf(dir);

    const message = await failedStart(dir);
    expect(message).toContain(join(dir, LOG));
    expect(message).toContain('line 2');
    const after = filesOf(dir);
    expect(after[LOG]).toBe(before[LOG]);
    expect(after[STATE]).toBeUndefined();
    expect(after[LOCK]).toBeUndefined();
  });

  it('refuses a line that is JSON but not a mutation', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, LOG), `${logLine(1, 'a')}{"s":2,"m":[{"op":"upsert","c":"things","id":"x"}]}\n`);
    await expect(openStore(dir).opening).rejects.toThrow(
      /line 2 is unreadable \(not a mutation line: A mutation's op is "put", "del", "append" or "appends"; got "upsert"/,
    );
  });

  it(
    'refuses a log that does not follow its snapshot (state.json lost), instead of starting with part of the ' +
      'state',
    async () => {
      const dir = freshDir();
      mkdirSync(dir);
      writeFileSync(join(dir, LOG), logLine(7, 'g') + logLine(8, 'h'));
      const error = await openStore(dir).opening.catch((err: Error) => err);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toMatch(
        /line 1 holds mutation 7 where mutation 1 was expected \(state\.json ends at mutation 0\)/,
      );
      expect(existsSync(join(dir, LOCK))).toBe(false);
    },
  );

  it('skips the lines a snapshot already holds (a crash between the snapshot and emptying the log)', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(
      join(dir, STATE),
      JSON.stringify({
        schemaVersion: 1,
        seq: 2,
        counters: {},
        collections: { things: { a: { id: 'a' }, b: { id: 'b', v: 2 } } },
      }),
    );
    writeFileSync(join(dir, LOG), logLine(1, 'a') + logLine(2, 'b', { v: 2 }) + logLine(3, 'c'));
    const store = await openStore(dir).opening;
    expect([...store.values('things')]).toEqual([{ id: 'a' }, { id: 'b', v: 2 }, { id: 'c' }]);
    await store.close();
  });
});

describe('the snapshot state.json', () => {
  it.each([
    ['is not JSON', '{"schemaVersion": 1, "collections": {', /is not valid JSON/],
    ['is null', 'null', /is not a platform-emu state document/],
    ['has no collections', '{"schemaVersion": 1}', /is not a platform-emu state document/],
  ])('stops the start when it %s, naming the file, and leaves it as it was', async (_case, text, pattern) => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, STATE), text);
    writeFileSync(join(dir, LOG), '');
    const before = filesOf(dir);
    const message = await failedStart(dir);
    expect(message).toContain(join(dir, STATE));
    expect(message).toMatch(pattern);
    expect(filesOf(dir)).toEqual(before);
  });

  it('refuses a data directory written by a newer schemaVersion', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, STATE), JSON.stringify({ schemaVersion: 99, seq: 0, counters: {}, collections: {} }));
    const before = filesOf(dir);
    const message = await failedStart(dir);
    expect(message).toMatch(
      /state\.json was written by a newer platform-emu \(state schema 99; this one reads up to 1\)/,
    );
    expect(filesOf(dir)).toEqual(before);
  });

  it('is rewritten once the log passes compactBytes, the log keeping only the lines after it, nothing lost', async () => {
    const dir = freshDir();
    const store = await openStore(dir, { compactBytes: 1000 }).opening;
    for (let i = 0; i < 60; i++) await store.put('things', `t${i}`, { id: `t${i}`, padding: 'x'.repeat(40) });
    await store.compacted();
    const snapshot = JSON.parse(readFileSync(join(dir, STATE), 'utf8'));
    const lines = readFileSync(join(dir, LOG), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    // The log was shortened: it keeps only the lines after the snapshot (appended while it was written), in order.
    expect(lines.length).toBeLessThan(60);
    expect(lines.map((line) => line.s)).toEqual(lines.map((_, i) => snapshot.seq + 1 + i));
    expect(Object.keys(snapshot.collections.things).length + lines.length).toBe(60);
    expect(snapshot.schemaVersion).toBe(1);

    const reopened = await openStore(crashCopy(dir)).opening;
    expect(reopened.count('things')).toBe(60);
    await Promise.all([store.close(), reopened.close()]);
  });

  it('is opened after the temporary copies of writes killed midway are removed, and nothing else', async () => {
    const dir = freshDir();
    await (await openStore(dir).opening).close();
    const left = [
      '.state.json.4242.tmp',
      '.signing-key.json.4242.tmp',
      '.tls-ca.json.17.tmp',
      '.mutations.jsonl.9.tmp',
    ];
    const kept = ['.notes.json.tmp', 'state.json.bak', '.state.json.4242.tmp.keep', '.state.json.x.tmp'];
    for (const name of [...left, ...kept]) writeFileSync(join(dir, name), '{"half": ');
    const store = await openStore(dir).opening;
    expect(readdirSync(dir).sort()).toEqual([...kept, LOCK, LOG, STATE].sort());
    await store.close();
  });

  it('holds everything after a clean stop, and the log is empty', async () => {
    const dir = freshDir();
    const store = await openStore(dir).opening;
    await Promise.all([store.put('things', 'a', { id: 'a' }), store.put('things', 'b', { id: 'b' })]);
    await store.delete('things', 'a');
    expect(readFileSync(join(dir, LOG), 'utf8').trim().split('\n')).toHaveLength(3);
    await store.close();
    expect(readFileSync(join(dir, LOG), 'utf8')).toBe('');
    expect(JSON.parse(readFileSync(join(dir, STATE), 'utf8'))).toMatchObject({
      schemaVersion: 1,
      seq: 3,
      collections: { things: { b: { id: 'b' } } },
    });
    expect(existsSync(join(dir, LOCK))).toBe(false);
  });
});

describe('writes', () => {
  it('are on disk when the commit resolves, also many at once', async () => {
    const dir = freshDir();
    const store = await openStore(dir).opening;
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.put('things', `t${i}`, { id: `t${i}` })));
    const lines = readFileSync(join(dir, LOG), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(200);
    expect(lines.map((l) => JSON.parse(l).s)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await store.close();
  });

  it('keep counters across a crash: nextId never hands out an id twice', async () => {
    const dir = freshDir();
    const store = await openStore(dir).opening;
    const first = store.nextId('command');
    const second = store.nextId('command');
    await store.put('commands', `cmd-${second}`, { id: `cmd-${second}` });
    const reopened = await openStore(crashCopy(dir)).opening;
    expect([first, second]).toEqual([1, 2]);
    expect(reopened.nextId('command')).toBe(3);
    await Promise.all([store.close(), reopened.close()]);
  });

  it('are refused once the store is closed', async () => {
    const store = await openStore(freshDir()).opening;
    await store.close();
    await expect(store.put('things', 'late', { id: 'late' })).rejects.toThrow(/closed/);
  });

  it('are refused on a read-only store', async () => {
    const dir = freshDir();
    await (await openStore(dir).opening).close();
    const store = await openStore(dir, { readOnly: true }).opening;
    await expect(store.put('things', 'x', { id: 'x' })).rejects.toThrow(/read-only/);
    expect(existsSync(join(dir, LOCK))).toBe(false);
  });
});

describe('the lock on a data directory', () => {
  it('stops a second emulator in the same process', async () => {
    const dir = freshDir();
    const first = await startEmulator({ port: 0, mqttPort: 0, dataDir: dir, log: () => undefined });
    try {
      const message = await failedStart(dir);
      expect(message).toMatch(/is in use by another emulator in this process/);
      expect(JSON.parse(readFileSync(join(dir, LOCK), 'utf8'))).toMatchObject({ pid: process.pid, url: first.url });
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dir, LOCK))).toBe(false);
  });

  it('is taken over with a warning when its owner is dead', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    const dead = await execa('node', ['-e', 'console.log(process.pid)']);
    writeFileSync(join(dir, LOCK), JSON.stringify({ pid: Number(dead.stdout), startedAt: new Date().toISOString() }));
    const warnings: string[] = [];
    const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir: dir, log: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/Taking over the stale lock .*emulator\.lock/);
    expect(JSON.parse(readFileSync(join(dir, LOCK), 'utf8')).pid).toBe(process.pid);
    await emulator.stop();
  });

  it(
    'is taken over when it names this very pid but this process does not hold it (pid reused after a ' + 'restart)',
    async () => {
      const dir = freshDir();
      mkdirSync(dir);
      writeFileSync(join(dir, LOCK), JSON.stringify({ pid: process.pid, startedAt: '2020-01-01T00:00:00.000Z' }));
      const { opening, warnings } = openStore(dir);
      const store = await opening;
      expect(warnings.join('\n')).toMatch(/stale lock/);
      await store.close();
    },
  );
});

describe('a data directory that cannot be one', () => {
  it('stops the start with a message naming it', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'not a directory');
    expect(await failedStart(file)).toMatch(new RegExp(`Cannot use ${file} as the data directory: EEXIST`));
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
  });
});

describe('an in-memory emulator', () => {
  it('writes nothing, not even to the data directory it was given', async () => {
    const dir = freshDir();
    const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, dataDir: dir, log: () => undefined });
    const created = await fetch(`${emulator.url}/epr/api/v1/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpointId: 'mem-1', appVersion: { name: 'smart-meter-v1' } }),
    });
    expect(created.status).toBe(201);
    const health = await (await fetch(`${emulator.url}/_emu/health`)).json();
    expect(health).toMatchObject({ inMemory: true, dataDir: null });
    await emulator.stop();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('secondary indexes', () => {
  it('follow a record through updates that keep, change and drop its key, and its deletion', async () => {
    const { opening } = openStore(freshDir());
    const store = await opening;
    store.defineIndex('things', 'colour', (t) => t.colour as string | undefined);
    const ids = (colour: string) =>
      store
        .lookup<{ id: string }>('things', 'colour', colour)
        .map((t) => t.id)
        .sort();
    await store.put('things', 'a', { id: 'a', colour: 'red', n: 1 });
    await store.put('things', 'b', { id: 'b', colour: 'red', n: 1 });
    await store.put('things', 'a', { id: 'a', colour: 'red', n: 2 });
    expect(ids('red')).toEqual(['a', 'b']);
    expect(store.lookup<{ n: number }>('things', 'colour', 'red').find((t) => t.n === 2)).toBeDefined();
    await store.put('things', 'a', { id: 'a', colour: 'blue', n: 3 });
    expect([ids('red'), ids('blue')]).toEqual([['b'], ['a']]);
    await store.put('things', 'a', { id: 'a', n: 4 });
    expect([ids('red'), ids('blue')]).toEqual([['b'], []]);
    await store.put('things', 'a', { id: 'a', colour: 'red', n: 5 });
    await store.delete('things', 'b');
    expect(ids('red')).toEqual(['a']);
    await store.close();
  });

  it('keep a key of one record, then of two, then of none, each record once', async () => {
    const { opening } = openStore(freshDir());
    const store = await opening;
    store.defineIndex('things', 'token', (t) => t.token as string);
    const ids = (token: string) => store.lookup<{ id: string }>('things', 'token', token).map((t) => t.id);
    await store.put('things', 'a', { id: 'a', token: 't1' });
    await store.put('things', 'a', { id: 'a', token: 't1', n: 1 });
    expect(ids('t1')).toEqual(['a']);
    await store.put('things', 'b', { id: 'b', token: 't1' });
    await store.put('things', 'c', { id: 'c', token: 't1' });
    expect(ids('t1')).toEqual(['a', 'b', 'c']);
    await store.delete('things', 'a');
    await store.put('things', 'b', { id: 'b', token: 't2' });
    expect([ids('t1'), ids('t2')]).toEqual([['c'], ['b']]);
    await store.delete('things', 'c');
    await store.delete('things', 'b');
    expect([ids('t1'), ids('t2')]).toEqual([[], []]);
    await store.put('things', 'constructor', { id: 'constructor', token: '__proto__' });
    expect(ids('__proto__')).toEqual(['constructor']);
    await store.close();
  });
});
