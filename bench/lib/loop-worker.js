// Figure 9 in a fresh process, as a test file uses the package: import it once, then time the in-process API
// (in memory, auth off, free ports). argv[2]: JSON { defaultFixtures, largeFixtures, largeEndpoints, starts, resets,
// parallel }. Prints one JSON line of times in milliseconds.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const job = JSON.parse(process.argv[2]);
const quiet = () => undefined;
const options = (extra = {}) => ({ inMemory: true, auth: 'off', port: 0, mqttPort: 0, log: quiet, ...extra });

const importStarted = performance.now();
const { startEmulator } = await import('../../dist/index.js');
const importMs = performance.now() - importStarted;

async function timed(work) {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

/** The floor of "a server in this process is ready": node:http listening on a free port. */
async function bareListen() {
  const server = createServer((_req, res) => res.end('ok'));
  const { ms } = await timed(() => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
  await new Promise((resolve) => server.close(resolve));
  return ms;
}

async function endpointCount(emulator) {
  const response = await fetch(`${emulator.url}/epr/api/v1/endpoints?limit=1`);
  if (response.status !== 200) throw new Error(`GET /epr/api/v1/endpoints answered ${response.status} after a reset`);
  return (await response.json()).totalElements;
}

/** `reset()` `count` times on an emulator started with `extra`, checking it gives back the fixtures' endpoints. */
async function resets(extra, count, expectedEndpoints) {
  const emulator = await startEmulator(options(extra));
  try {
    const times = [];
    for (let i = 0; i < count; i++) {
      // Something to undo: one endpoint more.
      await fetch(`${emulator.url}/epr/api/v1/endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appVersion: { name: 'smart-meter-v1' } }),
      });
      times.push((await timed(() => emulator.reset())).ms);
    }
    const endpoints = await endpointCount(emulator);
    if (expectedEndpoints !== undefined && endpoints !== expectedEndpoints)
      throw new Error(`reset() left ${endpoints} endpoints, not the fixtures' ${expectedEndpoints}`);
    return { times, endpoints };
  } finally {
    await emulator.stop();
  }
}

/** The floor of going back to a fixture file's state: reading and parsing the file. */
function readFixture(path) {
  const started = performance.now();
  JSON.parse(readFileSync(path, 'utf8'));
  return performance.now() - started;
}

const readDefault = [];
const readLarge = [];
for (let i = 0; i < job.resets; i++) {
  readDefault.push(readFixture(job.defaultFixtures));
  readLarge.push(readFixture(job.largeFixtures));
}
const floor = [];
const start = [];
for (let i = 0; i < job.starts; i++) {
  floor.push(await bareListen());
  const { ms, result: emulator } = await timed(() => startEmulator(options()));
  start.push(ms);
  await emulator.stop();
}
const defaults = await resets({}, job.resets);
const large = await resets({ fixtures: job.largeFixtures }, job.resets, job.largeEndpoints);

// N emulators one after another, then N at once (Promise.all), each answering on its own port.
const sequential = await timed(async () => {
  const emulators = [];
  for (let i = 0; i < job.parallel; i++) emulators.push(await startEmulator(options()));
  return emulators;
});
await Promise.all(sequential.result.map((e) => e.stop()));
const parallel = await timed(() => Promise.all(Array.from({ length: job.parallel }, () => startEmulator(options()))));
const ports = new Set(parallel.result.map((e) => e.port));
const healthy = await Promise.all(
  parallel.result.map(async (e) => (await fetch(`${e.url}/_emu/health`)).status === 200),
);
await Promise.all(parallel.result.map((e) => e.stop()));

process.stdout.write(
  `${JSON.stringify({
    importMs,
    floor,
    start,
    readDefault,
    readLarge,
    resetDefault: defaults.times,
    defaultEndpoints: defaults.endpoints,
    resetLarge: large.times,
    largeEndpoints: large.endpoints,
    sequentialMs: sequential.ms,
    parallelMs: parallel.ms,
    parallelApart: ports.size === job.parallel && healthy.every(Boolean),
  })}\n`,
);
