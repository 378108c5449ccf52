import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, startProcess, type EmulatorProcess } from './emulator-process.js';

const ROUNDS = 24;
const WRITERS = 4;

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Written {
  metadata: { round: number; writer: number; n: number };
}

async function storedEndpoints(url: string): Promise<Map<string, Written>> {
  const response = await fetch(`${url}/epr/api/v1/endpoints?limit=0&include=metadata`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { content: Array<{ endpointId: string } & Written> };
  return new Map(body.content.map((e) => [e.endpointId, e]));
}

/**
 * One writer: registers endpoints one after another until the emulator is killed. Only a 201 counts as
 * acknowledged; before the kill every answer must be a 201, after it anything may happen to a request in flight.
 */
async function write(
  url: string,
  round: number,
  writer: number,
  acknowledged: Map<string, Written>,
  killed: () => boolean,
  problems: string[],
) {
  for (let n = 0; !killed(); n++) {
    const endpointId = `crash-${round}-${writer}-${n}`;
    const metadata = { round, writer, n };
    try {
      const response = await fetch(`${url}/epr/api/v1/endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          endpointId,
          endpointToken: `${endpointId}-token`,
          appVersion: { name: 'smart-meter-v1' },
          metadata,
        }),
      });
      if (response.status === 201) acknowledged.set(endpointId, { metadata });
      else if (!killed()) problems.push(`${endpointId}: ${response.status} ${await response.text()}`);
    } catch (err) {
      if (!killed()) problems.push(`${endpointId}: ${(err as Error).message}`);
    }
  }
}

describe('an emulator killed with SIGKILL while clients write', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-emu-crash-'));
  const seed = Date.now();
  const next = random(seed);
  let current: EmulatorProcess | undefined;
  beforeAll(assertBuilt);
  afterAll(async () => {
    // Only matters when an assertion failed with an emulator still running.
    current?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it(`loses no acknowledged write across ${ROUNDS} crashes (seed ${seed})`, async () => {
    const acknowledged = new Map<string, Written>();
    let rounds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Every other run rewrites the snapshot every few writes, so kills also land mid-compaction.
      const compaction = round % 2 === 0 ? ['--compact-bytes', '3000'] : [];
      const emulator = (current = await startProcess(['--port', '0', '--quiet', '--data', dir, ...compaction]));

      const stored = await storedEndpoints(emulator.url);
      const lost = [...acknowledged.keys()].filter((id) => !stored.has(id));
      expect(lost, `acknowledged writes missing after crash ${round} (seed ${seed})`).toEqual([]);
      const changed = [...acknowledged].filter(
        ([id, w]) => JSON.stringify(stored.get(id)!.metadata) !== JSON.stringify(w.metadata),
      );
      expect(changed, `records changed after crash ${round}`).toEqual([]);

      let killed = false;
      const problems: string[] = [];
      const writers = Array.from({ length: WRITERS }, (_, w) =>
        write(emulator.url, round, w, acknowledged, () => killed, problems),
      );
      await sleep(20 + next() * 180);
      emulator.child.kill('SIGKILL');
      killed = true;
      await Promise.all(writers);
      const exit = await emulator.child;
      expect(exit.signal).toBe('SIGKILL');
      expect(problems, `answers before the kill in round ${round}`).toEqual([]);
      rounds++;
    }
    expect(rounds).toBe(ROUNDS);
    expect(acknowledged.size).toBeGreaterThan(ROUNDS * WRITERS);

    // A last start proves the state loads; a clean stop then folds everything into state.json.
    const last = (current = await startProcess(['--port', '0', '--quiet', '--data', dir]));
    const stored = await storedEndpoints(last.url);
    expect([...acknowledged.keys()].filter((id) => !stored.has(id))).toEqual([]);
    expect(await last.stop('SIGTERM')).toMatchObject({ exitCode: 0 });
    const snapshot = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    expect([...acknowledged.keys()].filter((id) => !(id in snapshot.collections.endpoints))).toEqual([]);
    expect(readFileSync(join(dir, 'mutations.jsonl'), 'utf8')).toBe('');
  }, 120_000); // normally about 15 s; the margin is for a machine busy with other test files
});
