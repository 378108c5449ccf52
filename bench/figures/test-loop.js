// Figure 9: the test-suite loop, through the package's in-process API (`startEmulator`, `handle.reset()`), in a
// fresh process as a test file would: start to ready after the first import, reset() at the default fixtures and
// at 10,000 endpoints, and 8 emulators started at once in one process (bench/lib/loop-worker.js).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_FIXTURES } from '../../dist/config.js';
import { runToEnd } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { benchEndpointId } from '../lib/state.js';
import { median } from '../lib/stats.js';

const WORKER = fileURLToPath(new URL('../lib/loop-worker.js', import.meta.url));
const VERSIONS = ['smart-meter-v1', 'smart-meter-v2', 'tracker-v1'];

/** The default fixtures plus `count` endpoints with metadata, as a fixture file a test suite would keep. */
function largeFixture(path, count) {
  const fixture = JSON.parse(readFileSync(DEFAULT_FIXTURES, 'utf8'));
  for (let i = 1; i <= count; i++) {
    const endpointId = benchEndpointId(i);
    fixture.endpoints.push({
      endpointId,
      appVersion: VERSIONS[i % VERSIONS.length],
      token: `${endpointId}-token`,
      metadata: { serial: `SN-${100000 + i}`, model: i % 2 ? 'm1' : 'm2', site: `site-${i % 40}` },
    });
  }
  writeFileSync(path, JSON.stringify(fixture, null, 2));
  return fixture.endpoints.filter((e) => !e.tenantId || e.tenantId === 'acme').length;
}

export default {
  name: 'test-loop',
  async run(bench) {
    const { endpoints, starts, resets, parallel, parallelRounds } = bench.profile.loop;
    const largeFixtures = join(bench.dir('loop'), 'fixtures.json');
    largeFixture(largeFixtures, endpoints);
    const job = { defaultFixtures: DEFAULT_FIXTURES, largeFixtures, starts, resets, parallel, parallelRounds };
    const r = JSON.parse(await runToEnd(process.execPath, [WORKER, JSON.stringify(job)], { label: 'in-process API' }));
    const ms = (values) => values.map((v) => v.toFixed(1)).join(', ');
    return [
      measure({
        id: '9a',
        name: 'startEmulator() to ready after the first import, in memory, auth off',
        unit: 'ms',
        // What a test file pays: its first start, once the package is imported.
        value: r.start[0],
        reference: median(r.floor),
        referenceName: 'node:http listen, same process',
        target: { on: 'value', op: '<', limit: 100 },
        note:
          `the import itself took ${Math.round(r.importMs)} ms (not ` +
          `counted)${
            starts > 1 ? `; later starts in the same process: median ${median(r.start.slice(1)).toFixed(1)} ms` : ''
          }`,
      }),
      measure({
        id: '9b',
        name: 'reset() at the default fixtures',
        unit: 'ms',
        value: median(r.resetDefault),
        reference: median(r.readDefault),
        rounds: r.resetDefault,
        referenceName: 'reading + parsing the fixture file',
        target: { on: 'value', op: '<', limit: 20 },
        note: `${ms(r.resetDefault)} ms; ${r.defaultEndpoints} endpoints after it`,
      }),
      measure({
        id: '9c',
        name: `reset() at ${endpoints} endpoints (a fixture file of them)`,
        unit: 'ms',
        value: median(r.resetLarge),
        reference: median(r.readLarge),
        rounds: r.resetLarge,
        referenceName: 'reading + parsing the fixture file',
        target: { on: 'value', op: '<', limit: 200 },
        note: `${ms(r.resetLarge)} ms; ${r.largeEndpoints} endpoints after it`,
      }),
      measure({
        id: '9d',
        name: `${parallel} emulators started at once in one process`,
        unit: 'ms',
        value: median(r.parallelMs),
        reference: median(r.sequentialMs),
        rounds: r.parallelMs,
        referenceRounds: r.sequentialMs,
        referenceName: `${parallel} started one after another`,
        target: { on: 'ratio', op: '<=', limit: 1 },
        checks: [{ name: `each on its own port, each healthy`, ok: r.parallelApart }],
        note: `at once ${ms(r.parallelMs)} ms; one after another ${ms(r.sequentialMs)} ms (rounds alternate the order)`,
      }),
    ];
  },
};
