// The machinery of a fleet run (bench/figures/fleet.js makes its rows): `platform-emu device simulate --fleet`
// against a started emulator, its `--json` log, the command load, the emulator's health asked throughout, the spot
// reads of `.../time-series/last` after replies, and the count of every accepted sample in the time series API.
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { httpJson, httpRequest } from './http.js';
import { cpuSecondsOf, rssOf, startServer, stopProcess } from './processes.js';
import { settlesWithin, within } from './bounded.js';
import { SERIES_NAME } from './state.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
const HEALTH_WORKER = new URL('./health-worker.js', import.meta.url);
/** The application version of the fleet's endpoints, and its application. */
export const FLEET_VERSION = 'smart-meter-v1';
const APP = 'smart-meter';
/** About this many accepted samples a second are read back at once through `.../time-series/last`. */
const SPOT_CHECKS_PER_SECOND = 20;
/** How often the emulator's and the simulator's RSS are sampled, and the emulator's health asked. */
export const SAMPLE_EVERY_MS = 250;
/** The store's points are counted over windows of this length, so that no one answer holds every point of a run. */
const COUNT_WINDOW_MS = 10_000;
/** The longest a fleet's end may take: commands and reads still waiting, the simulator's stop, the count. */
const END_MS = 180_000;
/**
 * How long the last commands may take with the fleet still publishing (each waits at most 5 s for its device on an
 * emulator that keeps up); then the simulator stops first, so that an emulator behind its devices can catch up.
 */
const COMMANDS_END_MS = 30_000;

/**
 * What the simulator's `--json` lines tell: samples accepted, errors, answers, and the publish-to-reply times of
 * the samples made from `log.timedFrom` on (the first seconds pay one-time costs: each device's first request
 * subscribes to its replies, each endpoint's first point starts its series).
 */
export function fleetLog() {
  const log = {
    connected: 0,
    accepted: new Map(),
    latencies: [],
    errors: [],
    answered: 0,
    stoppedLine: undefined,
    timedFrom: Infinity,
  };
  log.take = (line) => {
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (event.event === 'connected') log.connected++;
    else if (event.event === 'answered') log.answered++;
    else if (event.event === 'error') log.errors.push(event);
    else if (event.event === 'stopped') log.stoppedLine = event;
    else if (event.event === 'telemetry') {
      const at = event.sample.timestamp;
      let times = log.accepted.get(event.token);
      if (!times) log.accepted.set(event.token, (times = []));
      times.push(at);
      if (at >= log.timedFrom) log.latencies.push(Date.parse(event.time) - at);
      return event;
    }
    return undefined;
  };
  return log;
}

/** Commands to random devices at a steady rate, each waiting up to 5 s for its answer. */
function commandLoad(url, endpointIds, perSecond) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const results = { sent: 0, answered: 0, other: {}, times: [] };
  const pending = new Set();
  const send = () => {
    const endpointId = endpointIds[Math.floor(Math.random() * endpointIds.length)];
    const started = performance.now();
    results.sent++;
    const request = httpRequest(`${url}/cex/api/v1/endpoints/${endpointId}/commands/benchFleet?waitTimeout=5`, {
      method: 'POST',
      body: { n: results.sent },
      agent,
    })
      .then((response) => {
        if (response.status === 200) {
          results.answered++;
          results.times.push(performance.now() - started);
        } else results.other[response.status] = (results.other[response.status] ?? 0) + 1;
      })
      .catch((err) => (results.other[err.code ?? err.message] = (results.other[err.code ?? err.message] ?? 0) + 1))
      .finally(() => pending.delete(request));
    pending.add(request);
  };
  const timer = setInterval(send, 1000 / perSecond);
  return {
    results,
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      agent.destroy();
      return results;
    },
  };
}

/**
 * Every accepted sample, looked for in `GET .../time-series/data` over the whole run (in windows of COUNT_WINDOW_MS,
 * bounds included; a point on a bound is counted once).
 */
async function countStored(url, log, from, to) {
  const stored = new Map();
  for (let start = from; start < to; start += COUNT_WINDOW_MS) {
    const query =
      `timeSeriesName=${SERIES_NAME}&fromDate=${new Date(start).toISOString()}&toDate=` +
      `${new Date(Math.min(start + COUNT_WINDOW_MS, to)).toISOString()}&includeTime=both`;
    const chunks = await httpJson(`${url}/epts/api/v1/applications/${APP}/time-series/data?${query}`);
    for (const chunk of chunks) {
      for (const [endpointId, bySeries] of Object.entries(chunk)) {
        let times = stored.get(endpointId);
        if (!times) stored.set(endpointId, (times = new Set()));
        for (const point of bySeries[SERIES_NAME] ?? []) times.add(Date.parse(point.timestamp));
      }
    }
  }
  let points = 0;
  for (const times of stored.values()) points += times.size;
  let accepted = 0;
  let found = 0;
  for (const [token, times] of log.accepted) {
    const endpointTimes = stored.get(token.replace(/-token$/, '')) ?? new Set();
    accepted += times.length;
    for (const time of times) if (endpointTimes.has(time)) found++;
  }
  return { accepted, found, points };
}

/** `GET /_emu/health` one at a time, as often as SAMPLE_EVERY_MS allows, from a thread of its own: each answer's time. */
export function healthProbe(url) {
  const worker = new Worker(HEALTH_WORKER, { workerData: { url, everyMs: SAMPLE_EVERY_MS } });
  const times = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // A thread that failed is told by `stop`, not as an unhandled rejection while the fleet runs.
  times.catch(() => undefined);
  return {
    async stop() {
      worker.postMessage('stop');
      return times;
    },
    /** Ends the thread at once (a fleet that failed). */
    cancel: () => worker.terminate(),
  };
}

/**
 * Spot reads: about SPOT_CHECKS_PER_SECOND of the accepted samples a second read back at once through
 * `.../time-series/last` (the reply came, so the point must be there); `spot` counts them and lists the late ones.
 */
function spotReads(url, devices) {
  const every = Math.max(1, Math.round(devices / SPOT_CHECKS_PER_SECOND));
  const spot = { seen: 0, checked: 0, late: [] };
  const pending = new Set();
  return {
    spot,
    /** An accepted sample (a `telemetry` event of the simulator): read back if it is its turn. */
    take(sample) {
      if (spot.seen++ % every !== 0) return;
      const endpointId = sample.token.replace(/-token$/, '');
      const check = httpJson(
        `${url}/epts/api/v1/applications/${APP}/time-series/last?endpointId=` +
          `${endpointId}&timeSeriesName=${SERIES_NAME}`,
      )
        .then((answer) => {
          spot.checked++;
          const last = answer[endpointId]?.[SERIES_NAME]?.[0];
          if (!last || Date.parse(last.timestamp) < sample.sample.timestamp)
            spot.late.push(`${endpointId} ${new Date(sample.sample.timestamp).toISOString()}`);
        })
        .catch((err) => spot.late.push(`${endpointId}: ${err.message}`))
        .finally(() => pending.delete(check));
      pending.add(check);
    },
    /** Resolves once every read begun has its answer. */
    settled: () => Promise.all(pending),
  };
}

/**
 * Starts `platform-emu device simulate --fleet <devices>` (one sample a second each, `--json`, then `args`) and
 * resolves with it once every device is connected, its lines going to `log` and each accepted sample to `onSample`.
 * A fleet that does not get going within a bound is stopped and fails.
 */
export async function startFleet(bench, { devices, args, log, onSample = () => undefined }) {
  const pad = String(devices).length > 6 ? String(devices).length : 6;
  const simulator = await startServer(
    process.execPath,
    [
      BIN,
      'device',
      'simulate',
      '--app-version',
      FLEET_VERSION,
      '--fleet',
      String(devices),
      '--token',
      `bench-{${'n'.repeat(pad)}}-token`,
      '--telemetry',
      'temperature=18..26',
      '--interval',
      '1000',
      '--json',
      ...args,
    ],
    {
      label: 'platform-emu device simulate --fleet',
      ready: /"event":"connected"[^\n]*\n/,
      // Every device connects before the first `connected` line: 10,000 took 60-85 s on the loaded machine.
      readyTimeoutMs: Math.max(120_000, devices * 30),
    },
  );
  log.connected = 1;
  let allConnected;
  const connected = new Promise((resolve) => (allConnected = resolve));
  simulator.lines((line) => {
    const sample = log.take(line);
    if (log.connected >= devices) allConnected();
    if (sample) onSample(sample);
  });
  if (devices <= 1) allConnected();
  // A fleet the server cannot serve never gets all its devices started: the figure fails rather than wait on.
  const connectMs = Math.max(120_000, devices * 30);
  await within(
    connectMs,
    () => `${log.connected} of ${devices} devices connected within ${connectMs} ms`,
    () => connected,
  ).catch(async (err) => {
    await stopProcess(simulator.child);
    throw err;
  });
  bench.log(
    `fleet: ${devices} devices connected ${Math.round(performance.now() - simulator.startedAt)} ms ` +
      `after spawning the simulator`,
  );
  return simulator;
}

/**
 * One fleet run against `emulator`, started on a state whose fleet endpoints are `endpointIds`: `devices` simulated
 * devices send a sample a second for `seconds` while `commandsPerSecond` commands go to random devices; latencies are
 * timed from `warmupSeconds` on; `tls`: each device over MQTT over TLS. `dashboard` (a watcher of
 * bench/lib/dashboard-watch.js, or undefined) starts once every device is connected and stops at the end.
 * Answers what the run saw, for the figures to make rows of.
 */
export async function runFleet(
  bench,
  emulator,
  { devices, seconds, commandsPerSecond, warmupSeconds, endpointIds, tls, dashboard },
) {
  const log = fleetLog();
  const reads = spotReads(emulator.url, devices);
  // The health probe starts after this: a fleet that fails to connect stops only the simulator.
  const simulator = await startFleet(bench, {
    devices,
    args: ['--url', emulator.url, ...(tls ? ['--tls'] : [])],
    log,
    onSample: (sample) => reads.take(sample),
  });
  await dashboard?.start();

  const from = Date.now() - 1000;
  log.timedFrom = Date.now() + warmupSeconds * 1000;
  const commands = commandLoad(emulator.url, endpointIds, commandsPerSecond);
  const health = healthProbe(emulator.url);
  let peakRss = emulator.rss();
  let simulatorPeakRss = rssOf(simulator.child.pid);
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, emulator.rss());
    simulatorPeakRss = Math.max(simulatorPeakRss, rssOf(simulator.child.pid));
  }, SAMPLE_EVERY_MS);
  const cpu = cpuMeter({ emulator: emulator.child.pid, simulator: simulator.child.pid });
  // Half a second more, for the replies to the samples of the last second.
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 500));
  clearInterval(sampler);
  const cores = cpu.cores();
  const rssAtEnd = emulator.rss();
  peakRss = Math.max(peakRss, rssAtEnd);
  // An emulator that fell behind answers the last commands, spot reads and the count late, or never: the figure
  // fails after a bound rather than wait on (round thirteen's fleet of 10,000 was still working 17 minutes later).
  const runEnd = performance.now();
  /** Set when the simulator had to stop before the last commands were answered: how long after the run it did. */
  let behindMs;
  let step = '';
  const { dashboardRows, commandResults, healthTimes, stored } = await within(
    END_MS,
    () =>
      `the fleet's end (the last commands, spot reads and the count of stored samples) took more than ` +
      `${END_MS / 1000} s; still waiting for ${step}${coresNote(cores)}`,
    async () => {
      step = 'the dashboard to stop';
      const dashboardRows = (await dashboard?.stop({ devices, commandsPerSecond })) ?? [];
      step = `the last of ${commands.results.sent} commands`;
      const commandsDone = commands.stop();
      if (!(await settlesWithin(commandsDone, COMMANDS_END_MS))) {
        behindMs = Math.round(performance.now() - runEnd);
        bench.log(`fleet: commands still waiting ${COMMANDS_END_MS / 1000} s after the run: the simulator stops first`);
        step = 'the simulator to stop (the emulator behind its devices)';
        await stopProcess(simulator.child);
        step = `the last of ${commands.results.sent} commands, the simulator stopped`;
      }
      const commandResults = await commandsDone;
      step = 'the last health answer';
      const healthTimes = (await health.stop()).sort((a, b) => a - b);
      step = 'the simulator to stop';
      await stopProcess(simulator.child);
      step = `the spot reads still out (${reads.spot.checked} answered)`;
      await reads.settled();
      step = 'the count of stored samples';
      const stored = await countStored(emulator.url, log, from - 60_000, Date.now() + 60_000);
      return { dashboardRows, commandResults, healthTimes, stored };
    },
  ).catch(async (err) => {
    await Promise.all([stopProcess(simulator.child), health.cancel()]);
    throw err;
  });
  return {
    log,
    spot: reads.spot,
    stored,
    commandResults,
    healthTimes,
    peakRss,
    rssAtEnd,
    simulatorPeakRss,
    dashboardRows,
    cores,
    behindMs,
  };
}

/**
 * What each process used of the machine during the samples: a fleet that falls behind shows here which one was the
 * limit (the emulator serves from one event loop: about 1.0 of a core is all it can use).
 */
export const coresNote = (cores) =>
  cores
    ? `; CPU during the samples, in cores (of ${availableParallelism()}): emulator ${cores.emulator.toFixed(2)}, ` +
      `simulator ${cores.simulator.toFixed(2)}, the bench ${cores.bench.toFixed(2)}`
    : '';

/**
 * The CPU each process (by pid) and the bench itself use from now on, in cores: `cores()` answers the average since,
 * or undefined where a process's CPU cannot be read (not Linux).
 */
export function cpuMeter(pids) {
  const started = performance.now();
  const benchStart = process.cpuUsage();
  const starts = Object.entries(pids).map(([name, pid]) => [name, pid, cpuSecondsOf(pid)]);
  return {
    cores() {
      const seconds = (performance.now() - started) / 1000;
      const cores = {};
      for (const [name, pid, start] of starts) {
        const end = cpuSecondsOf(pid);
        if (start === undefined || end === undefined) return undefined;
        cores[name] = (end - start) / seconds;
      }
      const bench = process.cpuUsage(benchStart);
      cores.bench = (bench.user + bench.system) / 1e6 / seconds;
      return cores;
    },
  };
}
