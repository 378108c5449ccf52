// Figure 9 in a fresh process, as a test file uses the package: import it once, then time the in-process API
// (in memory, auth off, free ports). argv[2]: JSON { defaultFixtures, largeFixtures, largeEndpoints, starts, resets,
// parallel, parallelRounds }. Prints one JSON line of times in milliseconds.
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

/** `job.parallel` emulators started one after another; resolves with the time taken, once all are stopped again. */
async function startedInTurn() {
  const { ms, result: emulators } = await timed(async () => {
    const started = [];
    for (let i = 0; i < job.parallel; i++) started.push(await startEmulator(options()));
    return started;
  });
  await Promise.all(emulators.map((e) => e.stop()));
  return ms;
}

/**
 * `job.parallel` emulators started at once (Promise.all); resolves with the time taken and whether each had a port
 * of its own and answered its health, once all are stopped again.
 */
async function startedAtOnce() {
  const { ms, result: emulators } = await timed(() =>
    Promise.all(Array.from({ length: job.parallel }, () => startEmulator(options()))),
  );
  const ports = new Set(emulators.map((e) => e.port));
  const healthy = await Promise.all(emulators.map(async (e) => (await fetch(`${e.url}/_emu/health`)).status === 200));
  await Promise.all(emulators.map((e) => e.stop()));
  return { ms, apart: ports.size === job.parallel && healthy.every(Boolean) };
}

// Rounds of both, each round in the other order than the one before: a start takes a few milliseconds, so one
// collection of garbage during either series moves one round's ratio by far more than the difference measured.
const sequentialMs = [];
const parallelMs = [];
let parallelApart = true;
for (let round = 0; round < job.parallelRounds; round++) {
  const inTurn = async () => sequentialMs.push(await startedInTurn());
  const atOnce = async () => {
    const { ms, apart } = await startedAtOnce();
    parallelMs.push(ms);
    parallelApart &&= apart;
  };
  for (const series of round % 2 === 0 ? [inTurn, atOnce] : [atOnce, inTurn]) await series();
}

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
    sequentialMs,
    parallelMs,
    parallelApart,
  })}\n`,
);
