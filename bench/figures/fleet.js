// Figure 6: a fleet. `platform-emu device simulate --fleet 1000` (the simulator the product ships) sends one
// telemetry sample per device per second while 10 commands a second go to random devices; afterwards every
// accepted sample is looked for through the time series API. Publish-to-readable is the time from a sample's
// making to its KP1 reply: the gateway replies once the point is durable and in memory (spec 4 `dcx`), and spot
// reads of `.../time-series/last` after replies check that it is readable by then.
// Then the same fleet for up to 30 s with the dashboard open (12c/12d), and over MQTT over TLS (6i-6l, full and
// quick runs). `--big-fleet` adds a fleet of 10,000 (6e-6h: 100 commands a second, the simulator spread over its
// default worker threads, the emulator's health answers timed throughout); see docs/performance.md.
import { existsSync } from 'node:fs';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { workerCount } from '../../dist/cli/device/plan.js';
import { CHROMIUM } from '../lib/chromium.js';
import { watchDashboard } from '../lib/dashboard-watch.js';
import { httpJson, httpRequest } from '../lib/http.js';
import { rssOf, runToEnd, startServer, stopProcess } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { SERIES_NAME } from '../lib/state.js';
import { percentile } from '../lib/stats.js';

const BIN = fileURLToPath(new URL('../../bin/platform-emu.js', import.meta.url));
const FSYNC = fileURLToPath(new URL('../references/fsync.js', import.meta.url));
const VERSION = 'smart-meter-v1';
const APP = 'smart-meter';
const MB = 1024 * 1024;
/** About this many accepted samples a second are read back at once through `.../time-series/last`. */
const SPOT_CHECKS_PER_SECOND = 20;
/** How often the emulator's and the simulator's RSS are sampled, and the emulator's health asked. */
const SAMPLE_EVERY_MS = 250;
/** The fleet run with the dashboard open (12c/12d) lasts at most this long. */
const DASHBOARD_SECONDS = 30;
/** The store's points are counted over windows of this length, so that no one answer holds every point of a run. */
const COUNT_WINDOW_MS = 10_000;

/** The rows of a fleet run: their ids, and the targets that differ between the fleet of 1,000 and of 10,000. */
export const FLEET_ROWS = {
  thousand: { ids: ['6a', '6b', '6c', '6d'], p99Ms: 50, emulatorRssMb: 400 },
  tenThousand: { ids: ['6e', '6f', '6g', '6h'], p99Ms: 100, emulatorRssMb: 1024, simulatorRssMb: 1024, healthMs: 50 },
  /**
   * The fleet of 1,000 with the dashboard open (figures 12c/12d, a run of its own: on two cores the browser's work
   * would count against 6c).
   */
  thousandWithDashboard: { ids: ['6a', '6b', '6c', '6d'], p99Ms: 50, emulatorRssMb: 400, dashboard: true },
  /** The fleet of 1,000 again, each device over MQTT over TLS (`--tls`, one-way, trusting the root certificate). */
  thousandOverTls: { ids: ['6i', '6j', '6k', '6l'], p99Ms: 50, emulatorRssMb: 400, tls: true },
};

/**
 * What the simulator's `--json` lines tell: samples accepted, errors, answers, and the publish-to-reply times of
 * the samples made from `log.timedFrom` on (the first seconds pay one-time costs: each device's first request
 * subscribes to its replies, each endpoint's first point starts its series).
 */
function fleetLog() {
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

/** `GET /_emu/health` one at a time, as often as SAMPLE_EVERY_MS allows: each answer's time. */
function healthProbe(url) {
  const times = [];
  let asking;
  let stopped = false;
  const ask = () => {
    if (asking || stopped) return;
    const started = performance.now();
    asking = httpJson(`${url}/_emu/health`)
      .then(() => times.push(performance.now() - started))
      .catch(() => times.push(Infinity))
      .finally(() => (asking = undefined));
  };
  const timer = setInterval(ask, SAMPLE_EVERY_MS);
  ask();
  return {
    times,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await asking;
      return times;
    },
  };
}

export default {
  name: 'fleet',
  async run(bench) {
    const rows = await this.figures(bench, bench.profile.fleet, FLEET_ROWS.thousand);
    if (existsSync(CHROMIUM)) {
      const watched = { ...bench.profile.fleet, seconds: Math.min(bench.profile.fleet.seconds, DASHBOARD_SECONDS) };
      rows.push(...(await this.figures(bench, watched, FLEET_ROWS.thousandWithDashboard)));
    } else bench.log(`figures 12c/12d skipped: no Chromium at ${CHROMIUM}`);
    if (bench.profile.tlsFleet)
      rows.push(...(await this.figures(bench, bench.profile.fleet, FLEET_ROWS.thousandOverTls)));
    if (bench.profile.bigFleet)
      rows.push(...(await this.figures(bench, bench.profile.bigFleet, FLEET_ROWS.tenThousand)));
    return rows;
  },

  /**
   * One fleet run of `size` (`devices`, `seconds`, `commandsPerSecond`, `warmupSeconds`) on a state of as many
   * endpoints, and its four rows (`spec`: FLEET_ROWS.thousand or .tenThousand).
   */
  async figures(bench, size, spec) {
    const { devices, seconds, commandsPerSecond, warmupSeconds } = size;
    const [readableId, commandsId, latencyId, memoryId] = spec.ids;
    const fleetName = spec.tls ? `${devices} over TLS` : `${devices}`;
    const spotCheckEvery = Math.max(1, Math.round(devices / SPOT_CHECKS_PER_SECOND));
    const state = await bench.writeState('fleet-state', { endpoints: devices, versions: [VERSION] });
    const endpointIds = Object.values(state.document.collections.endpoints)
      .filter((e) => e.appVersion.name === VERSION && e.endpointId.startsWith('bench-'))
      .map((e) => e.endpointId);
    state.document = undefined;
    const fsync = JSON.parse(
      await runToEnd(process.execPath, [FSYNC, bench.dir('fsync'), String(bench.profile.singleWrites)], {
        label: 'fsync ceiling',
      }),
    );
    const floorRss = await bench.using(
      () => bench.startReference('bare-http', bench.file('bare-fleet.json', { routes: {} })),
      async (server) => server.rss(),
    );

    return bench.using(
      () => bench.startEmulator({ dataDir: state.dir }),
      async (emulator) => {
        // Figures 12c/12d: the dashboard open on the overview and the endpoints page, watched while the fleet runs.
        const dashboard = spec.dashboard ? await watchDashboard(bench, emulator.url, seconds) : undefined;
        const log = fleetLog();
        const spot = { seen: 0, checked: 0, late: [] };
        const spotChecks = new Set();
        const pad = String(devices).length > 6 ? String(devices).length : 6;
        const simulator = await startServer(
          process.execPath,
          [
            BIN,
            'device',
            'simulate',
            '--app-version',
            VERSION,
            '--fleet',
            String(devices),
            '--token',
            `bench-{${'n'.repeat(pad)}}-token`,
            '--telemetry',
            'temperature=18..26',
            '--interval',
            '1000',
            '--url',
            emulator.url,
            '--json',
            ...(spec.tls ? ['--tls'] : []),
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
          if (!sample || spot.seen++ % spotCheckEvery !== 0) return;
          // Read back at once: the reply came, so the point must be there.
          const endpointId = sample.token.replace(/-token$/, '');
          const check = httpJson(
            `${emulator.url}/epts/api/v1/applications/${APP}/time-series/last?endpointId=` +
              `${endpointId}&timeSeriesName=${SERIES_NAME}`,
          )
            .then((answer) => {
              spot.checked++;
              const last = answer[endpointId]?.[SERIES_NAME]?.[0];
              if (!last || Date.parse(last.timestamp) < sample.sample.timestamp)
                spot.late.push(`${endpointId} ${new Date(sample.sample.timestamp).toISOString()}`);
            })
            .catch((err) => spot.late.push(`${endpointId}: ${err.message}`))
            .finally(() => spotChecks.delete(check));
          spotChecks.add(check);
        });
        if (devices <= 1) allConnected();
        // A fleet the emulator cannot serve never gets all its devices started: the figure fails rather than wait on.
        const connectMs = Math.max(120_000, devices * 30);
        let connectTimer;
        await Promise.race([
          connected,
          new Promise((resolve, reject) => {
            connectTimer = setTimeout(
              () => reject(new Error(`${log.connected} of ${devices} devices connected within ${connectMs} ms`)),
              connectMs,
            );
          }),
        ])
          .catch(async (err) => {
            await stopProcess(simulator.child);
            throw err;
          })
          .finally(() => clearTimeout(connectTimer));
        bench.log(
          `fleet: ${devices} devices connected ${Math.round(performance.now() - simulator.startedAt)} ms ` +
            `after spawning the simulator`,
        );
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
        // Half a second more, for the replies to the samples of the last second.
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 500));
        const dashboardRows = (await dashboard?.stop({ devices, commandsPerSecond })) ?? [];
        const commandResults = await commands.stop();
        clearInterval(sampler);
        const healthTimes = (await health.stop()).sort((a, b) => a - b);
        const rssAtEnd = emulator.rss();
        peakRss = Math.max(peakRss, rssAtEnd);
        await stopProcess(simulator.child);
        await Promise.all(spotChecks);
        const stored = await countStored(emulator.url, log, from - 60_000, Date.now() + 60_000);

        const healthMax = (healthTimes.at(-1) ?? 0).toFixed(1);
        // The simulator runs with its default spread, as a user's would.
        const workers = workerCount({}, devices);
        const workersNote = workers === 1 ? 'one thread' : `${workers} worker threads`;
        const memoryChecks = [];
        if (spec.simulatorRssMb) {
          memoryChecks.push({
            name: `the simulator's peak RSS under ${spec.simulatorRssMb} MB (${(simulatorPeakRss / MB).toFixed(1)} MB)`,
            ok: simulatorPeakRss < spec.simulatorRssMb * MB,
          });
        }
        if (spec.healthMs) {
          memoryChecks.push({
            name: `every GET /_emu/health answered within ${spec.healthMs} ms (slowest ${healthMax} ms)`,
            ok: healthTimes.length > 0 && healthTimes.at(-1) < spec.healthMs,
          });
        }
        const refused = log.errors.filter((e) => !/stopped/i.test(e.message));
        const expected = devices * seconds;
        const p = (q) => percentile(log.latencies, q) ?? 0;
        const commandTimes = [...commandResults.times].sort((a, b) => a - b);
        const otherCommands = Object.entries(commandResults.other)
          .map(([k, n]) => `${n} x ${k}`)
          .join(', ');
        const rows = [
          measure({
            id: readableId,
            name: `fleet of ${fleetName}, ${seconds} s: samples readable through the time series API`,
            unit: 'samples',
            value: stored.found,
            reference: stored.accepted,
            referenceName: 'samples accepted (KP1 replies)',
            target: { on: 'ratio', op: '>=', limit: 1 },
            checks: [
              {
                name: `no sample refused (${refused.length} errors: ${refused
                  .slice(0, 2)
                  .map((e) => e.message)
                  .join(' | ')})`,
                ok: refused.length === 0,
              },
              // Devices start at their own point of the interval (spread over the first second), so the last second is
              // partial.
              {
                name: `the fleet sent about one sample per device and second (${stored.accepted} of ${expected})`,
                ok: stored.accepted >= devices * (seconds - 1),
              },
            ],
            note:
              `counted, not sampled: ${stored.points} points stored in the window; ${expected} expected ` +
              `(${devices} devices x ${seconds} s)`,
          }),
          measure({
            id: commandsId,
            name: `fleet of ${fleetName}: commands answered (${commandsPerSecond}/s to random devices)`,
            unit: 'commands',
            value: commandResults.answered,
            reference: commandResults.sent,
            referenceName: 'commands sent',
            target: { on: 'ratio', op: '>=', limit: 1 },
            note:
              `round trip p50 ${(percentile(commandTimes, 50) ?? 0).toFixed(1)} ms, p99 ` +
              `${(percentile(commandTimes, 99) ?? 0).toFixed(1)} ` +
              `ms${otherCommands ? `; not 200: ${otherCommands}` : ''}`,
          }),
          measure({
            id: latencyId,
            name: `fleet of ${fleetName}: sample publish-to-readable p99`,
            unit: 'ms',
            value: p(99),
            reference: fsync.p99,
            referenceName: 'append + fdatasync p99',
            target: { on: 'value', op: '<', limit: spec.p99Ms },
            checks: [
              {
                name:
                  `read back at once after its reply (${spot.late.length} of ${spot.checked} spot reads missed ` +
                  `it: ${spot.late.slice(0, 2).join(', ')})`,
                ok: spot.late.length === 0 && spot.checked > 0,
              },
            ],
            note:
              `${log.latencies.length} samples made after a ${warmupSeconds} s warm-up: p50 ${p(50)} ms, max ` +
              `${p(100)} ms (whole milliseconds: the simulator's sample time to its reply line); ` +
              `${spot.checked} spot reads of .../time-series/last right after a reply, each found its sample`,
          }),
          measure({
            id: memoryId,
            name: `fleet of ${fleetName}: emulator RSS, peak during the run`,
            unit: 'MB',
            value: peakRss / MB,
            reference: floorRss / MB,
            referenceName: 'bare node:http',
            target: { on: 'value', op: '<', limit: spec.emulatorRssMb },
            checks: memoryChecks,
            note:
              `${(rssAtEnd / MB).toFixed(1)} MB at the end, with ${devices} MQTT${spec.tls ? ' over TLS' : ''} ` +
              `connections and ` +
              `${stored.points} points; the simulator (${workersNote}) peaked at ${(simulatorPeakRss / MB).toFixed(1)} ` +
              `MB; GET /_emu/health every ${SAMPLE_EVERY_MS} ms: p50 ${(percentile(healthTimes, 50) ?? 0).toFixed(1)} ` +
              `ms, max ${healthMax} ms`,
          }),
        ];
        if (!spec.dashboard) return rows;
        // The dashboard's run tells 12c/12d, and what the fleet met meanwhile (beside 6a-6d, measured without it).
        const [readable, , latency] = rows;
        const meanwhile =
          `; the fleet meanwhile: ${readable.value} of ${readable.reference} samples readable, publish-to-readable ` +
          `p99 ${latency.value} ms (6c without the dashboard)`;
        return dashboardRows.map((row, i) => (i === 0 ? { ...row, note: `${row.note}${meanwhile}` } : row));
      },
    );
  },
};
