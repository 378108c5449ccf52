import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, startProcess, type EmulatorProcess } from './emulator-process.js';

/** `npm run crash` runs many more rounds (CRASH_ROUNDS); docs/state.md gives its figure. */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
/** Small enough that every round rewrites the snapshot several times, so that kills land right after compactions. */
const COMPACT_BYTES = 2048;
/** Acknowledged writes each writer needs in a round before the kill: together they pass COMPACT_BYTES. */
const PER_WRITER = 5;

/** A small seeded generator, so that a failing run can be replayed with the seed it reports. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SM = '/epts/api/v1/applications/smart-meter/time-series';
const BLOBS = '/bcx/api/v1/applications/smart-meter/binary-data';
const RANGE = 'fromDate=2000-01-01T00:00:00Z&toDate=2100-01-01T00:00:00Z';
/** Points of round r, write n: a time of their own, far from anything the fixtures hold. */
const pointTime = (round: number, n: number) => Date.UTC(2040, 0, 1) + round * 1_000_000 + n * 1000;

/** One kind of acknowledged write: how to make the n-th of a round, and how to find every one after a restart. */
interface Writer {
  name: string;
  /** Sends the write; resolves with its key once acknowledged, or throws (an error or an unexpected status). */
  write(url: string, round: number, n: number): Promise<string>;
  /** The keys (with their content) the restarted emulator holds. */
  stored(url: string): Promise<Map<string, string>>;
}

async function send(url: string, path: string, init: RequestInit, expected: number): Promise<Response> {
  const response = await fetch(`${url}${path}`, init);
  if (response.status !== expected)
    throw new Error(`${init.method} ${path}: ${response.status} ${await response.text()}`);
  return response;
}

async function getJson(url: string, path: string): Promise<any> {
  const response = await fetch(`${url}${path}`);
  expect(response.status, path).toBe(200);
  return response.json();
}

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Points of one endpoint's `voltage` series, time → value. */
async function voltagePoints(url: string, endpointId: string): Promise<Map<string, string>> {
  // The answer comes in chunks of at most 1,000 points: `[{ "<endpoint>": { "voltage": [...] } }, ...]`.
  const chunks: Array<Record<string, { voltage?: Array<{ timestamp: string; values: { value: unknown } }> }>> =
    await getJson(url, `${SM}/data?endpointId=${endpointId}&timeSeriesName=voltage&${RANGE}`);
  const points = chunks.flatMap((chunk) => chunk[endpointId]?.voltage ?? []);
  return new Map(points.map((p) => [String(Date.parse(p.timestamp)), JSON.stringify(p.values.value)]));
}

const WRITERS: Writer[] = [
  {
    name: 'endpoints (epr)',
    async write(url, round, n) {
      const endpointId = `crash-${round}-${n}`;
      const metadata = { round, n };
      await send(
        url,
        '/epr/api/v1/endpoints',
        json('POST', {
          endpointId,
          endpointToken: `${endpointId}-token`,
          appVersion: { name: 'smart-meter-v1' },
          metadata,
        }),
        201,
      );
      return endpointId;
    },
    async stored(url) {
      const body = await getJson(url, '/epr/api/v1/endpoints?limit=0&include=metadata');
      const endpoints: Array<{ endpointId: string; metadata: unknown }> = body.content;
      return new Map(
        endpoints
          .filter((e) => e.endpointId.startsWith('crash-'))
          .map((e) => [e.endpointId, JSON.stringify(e.metadata)]),
      );
    },
  },
  {
    name: 'series points (epts PUT data)',
    async write(url, round, n) {
      const time = pointTime(round, n);
      await send(
        url,
        `${SM}/data`,
        json('PUT', { 'meter-001': { voltage: [{ timestamp: new Date(time).toISOString(), values: { value: n } }] } }),
        204,
      );
      return String(time);
    },
    stored: (url) => voltagePoints(url, 'meter-001'),
  },
  {
    name: 'samples (KP1 dcx over HTTP)',
    async write(url, round, n) {
      const time = pointTime(round, n);
      await send(url, '/kp1/smart-meter-v1/dcx/meter-002-token/json', json('POST', [{ ts: time, voltage: n }]), 200);
      return String(time);
    },
    stored: (url) => voltagePoints(url, 'meter-002'),
  },
  {
    name: 'blobs (bcx upload)',
    async write(url, round, n) {
      const tokenReply = await send(url, '/kp1/smart-meter-v1/bcx/meter-003-token/token', { method: 'POST' }, 200);
      const { token } = (await tokenReply.json()) as { token: string };
      const name = `crash-${round}-${n}`;
      const headers = { 'content-type': 'application/octet-stream', 'x-auth-token': token };
      await send(
        url,
        `/bcx/api/v1/binary-data?name=${name}`,
        { method: 'POST', headers, body: `payload ${round} ${n}` },
        201,
      );
      return name;
    },
    async stored(url) {
      const groups: Array<Record<string, Array<{ name: string; size: number }>>> = await getJson(
        url,
        `${BLOBS}?endpointId=meter-003&${RANGE}`,
      );
      const blobs = groups.flatMap((g) => g['meter-003'] ?? []);
      return new Map(blobs.filter((b) => b.name.startsWith('crash-')).map((b) => [b.name, String(b.size)]));
    },
  },
];

/** What each writer's acknowledged writes must look like when read back. */
const expectedContent = (writer: number, round: number, n: number): string => {
  if (writer === 0) return JSON.stringify({ round, n });
  if (writer === 3) return String(Buffer.byteLength(`payload ${round} ${n}`));
  return JSON.stringify(n);
};

interface RoundResult {
  problems: string[];
}

/**
 * Every writer writes, one write after another, until the kill. The kill comes once each writer has had PER_WRITER
 * writes acknowledged in this round, plus a random number more in all (so kills land at varied points), however fast
 * or slow the machine is. Before the kill every answer must be the success status; after it, a request in flight may
 * fail or succeed, and only an acknowledged one counts.
 */
async function runRound(
  emulator: EmulatorProcess,
  round: number,
  extra: number,
  acknowledged: Array<Map<string, string>>,
): Promise<RoundResult> {
  let killed = false;
  const problems: string[] = [];
  const counts = WRITERS.map(() => 0);
  let total = 0;
  let reached!: () => void;
  const enough = new Promise<void>((resolve) => (reached = resolve));
  const check = () => {
    if (counts.every((c) => c >= PER_WRITER) && total >= PER_WRITER * WRITERS.length + extra) reached();
  };
  const loops = WRITERS.map(async (writer, w) => {
    for (let n = 0; !killed; n++) {
      try {
        const key = await writer.write(emulator.url, round, n);
        acknowledged[w].set(key, expectedContent(w, round, n));
        counts[w]++;
        total++;
        check();
      } catch (err) {
        if (!killed) {
          problems.push(`${writer.name}: ${(err as Error).message}`);
          reached();
          return;
        }
      }
    }
  });
  await enough;
  emulator.child.kill('SIGKILL');
  killed = true;
  await Promise.all(loops);
  return { problems };
}

async function missingOrChanged(url: string, acknowledged: Array<Map<string, string>>): Promise<string[]> {
  const wrong: string[] = [];
  for (const [w, writer] of WRITERS.entries()) {
    const stored = await writer.stored(url);
    for (const [key, content] of acknowledged[w]) {
      if (!stored.has(key)) wrong.push(`${writer.name}: ${key} is missing`);
      else if (stored.get(key) !== content)
        wrong.push(`${writer.name}: ${key} holds ${stored.get(key)}, not ${content}`);
    }
  }
  return wrong;
}

const snapshotSeq = (dir: string): number => {
  try {
    return JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).seq as number;
  } catch {
    return 0;
  }
};

describe('an emulator killed with SIGKILL while clients write', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-crash-'));
  const seed = Date.now();
  const next = random(seed);
  let current: EmulatorProcess | undefined;
  beforeAll(assertBuilt);
  afterAll(() => {
    // Only matters when an assertion failed with an emulator still running.
    current?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    `loses no acknowledged endpoint, point, sample or blob across ${ROUNDS} crashes right after compactions ` +
      `(seed ${seed})`,
    async () => {
      const acknowledged = WRITERS.map(() => new Map<string, string>());
      for (let round = 0; round < ROUNDS; round++) {
        const emulator = (current = await startProcess([
          '--port',
          '0',
          '--quiet',
          '--data',
          dir,
          '--compact-bytes',
          String(COMPACT_BYTES),
        ]));
        expect(
          await missingOrChanged(emulator.url, acknowledged),
          `acknowledged writes lost or changed by crash ${round - 1} (seed ${seed})`,
        ).toEqual([]);

        const seqBefore = snapshotSeq(dir);
        const { problems } = await runRound(emulator, round, Math.floor(next() * 12), acknowledged);
        const exit = await emulator.child;
        expect(exit.signal).toBe('SIGKILL');
        expect(problems, `answers before the kill in round ${round}`).toEqual([]);
        // The round's writes passed COMPACT_BYTES: the snapshot was rewritten while they went on.
        expect(snapshotSeq(dir), `no compaction in round ${round}`).toBeGreaterThan(seqBefore);
      }

      if (process.env.CRASH_ROUNDS) {
        // The long run's figure (docs/state.md).
        const counts = WRITERS.map((writer, w) => `${acknowledged[w].size} ${writer.name}`).join(', ');
        process.stdout.write(
          `crash run: ${ROUNDS} kills, 0 of ${acknowledged.reduce((n, a) => n + a.size, 0)} acknowledged ` +
            `writes lost (${counts})\n`,
        );
      }

      // A last start proves the state loads; a clean stop then folds everything into state.json.
      const last = (current = await startProcess(['--port', '0', '--quiet', '--data', dir]));
      expect(
        await missingOrChanged(last.url, acknowledged),
        `acknowledged writes lost by the last crash (seed ${seed})`,
      ).toEqual([]);
      expect(await last.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
      expect(readFileSync(join(dir, 'mutations.jsonl'), 'utf8')).toBe('');
      const again = (current = await startProcess(['--port', '0', '--quiet', '--data', dir]));
      expect(await missingOrChanged(again.url, acknowledged)).toEqual([]);
      expect(await again.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
    },
    60_000 + ROUNDS * 10_000,
  ); // about 1.3 s a round; the margin is for a machine busy with other test files
});
