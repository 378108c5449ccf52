import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { internalContext } from '../../src/emulator.js';
import { findEndpoint } from '../../src/services/epr/endpoints.js';
import { endpointTimeSeries } from '../../src/services/epts/index.js';
import { recordSamplePoints } from '../../src/services/epts/sample-batches.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, TestDevice } from './device.js';

const DEVICES = 8;
const root = mkdtempSync(join(tmpdir(), 'platform-emu-dcx-batches-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The mutation log's lines that append time series points. */
interface LoggedMutation {
  op: string;
  c: string;
  id?: string;
  v: unknown;
}

const appendsToSeries = (m: LoggedMutation) => m.op === 'append' || m.op === 'appends';

/** The ids of the series a mutation appends to: one (`append`) or several at once (`appends`: `[id, items]` pairs). */
const seriesOf = (m: LoggedMutation): string[] =>
  m.op === 'append' ? [m.id!] : m.op === 'appends' ? (m.v as Array<[string, unknown]>).map(([id]) => id) : [];

function pointLines(dataDir: string): Array<{ m: LoggedMutation[] }> {
  return readFileSync(join(dataDir, 'mutations.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
    .filter((line) => line.m.some(appendsToSeries));
}

describe('dcx: samples of several devices that arrive together share one commit', async () => {
  const dataDir = join(root, 'data');
  const emulator = await startTestEmulator({ inMemory: false, dataDir });
  const call = api(emulator);

  it('answers each device once its point is durable and readable, with fewer log writes than samples', async () => {
    const endpoints = await Promise.all(Array.from({ length: DEVICES }, () => registerEndpoint(emulator)));
    const devices = await Promise.all(endpoints.map(() => TestDevice.connect(emulator)));
    const time = Date.UTC(2024, 0, 1);
    const replies = await Promise.all(
      devices.map((device, i) => device.request(`${endpoints[i].topic('dcx')}/json`, { ts: time + i, load: i }, 1)),
    );
    expect(replies.map((r) => r.ok)).toEqual(endpoints.map(() => true));
    for (const [i, endpoint] of endpoints.entries()) {
      const last = await call(
        'GET',
        `/epts/api/v1/applications/smart-meter/time-series/last?endpointId=${endpoint.endpointId}&timeSeriesName=load`,
      );
      expect(last.body[endpoint.endpointId].load).toEqual([
        { timestamp: new Date(time + i).toISOString(), values: { value: i } },
      ]);
    }
    const lines = pointLines(dataDir);
    // The sample's own series, and the one the application's autoExtract setting makes of each numeric field.
    const appended = lines.flatMap((line) => line.m.flatMap(seriesOf));
    // A commit's points are one mutation, which names the collection once.
    for (const line of lines) expect(line.m.filter(appendsToSeries)).toHaveLength(1);
    expect(appended.filter((id) => id.endsWith('/load')).sort()).toEqual(
      endpoints.map((e) => `${e.endpointId}/load`).sort(),
    );
    // The series were new: each definition went into the first of those commits, once.
    const definitions = lines.flatMap((line) => line.m.filter((m) => m.op === 'put' && m.c === 'time-series'));
    expect(definitions.map((m) => m.id).sort()).toEqual(['smart-meter/auto~load', 'smart-meter/load']);
    // Sent at once, they arrive within the batch window of 5 ms: at least two of them shared a write.
    expect(lines.length).toBeLessThan(DEVICES);
  });
});

describe('dcx: a stop while samples wait for their batch window', () => {
  it("the time series service's teardown commits them before the state closes, and they are kept", async () => {
    const dataDir = join(root, 'stop');
    const emulator = await startTestEmulator({ inMemory: false, dataDir });
    const ctx = internalContext(emulator);
    const endpoint = findEndpoint(ctx, 'acme', 'meter-001')!;
    const time = Date.UTC(2024, 0, 2);
    let answered = false;
    const recorded = recordSamplePoints(ctx, endpoint, [
      { series: 'stop-test', point: { time, values: { value: 7 } } },
    ]);
    void recorded.then(() => (answered = true));
    // No timer can fire between these two lines: what the teardown does not commit is still waiting for its window.
    await endpointTimeSeries.teardown!(ctx);
    expect(answered).toBe(true);
    await emulator.stop();

    const again = await startTestEmulator({ inMemory: false, dataDir });
    try {
      const last = await api(again)(
        'GET',
        '/epts/api/v1/applications/smart-meter/time-series/last?endpointId=meter-001&timeSeriesName=stop-test',
      );
      expect(last.body['meter-001']['stop-test']).toEqual([
        { timestamp: new Date(time).toISOString(), values: { value: 7 } },
      ]);
    } finally {
      await again.stop();
    }
  });
});
