// Figure 6: a fleet. `platform-emu device simulate --fleet 1000` (the simulator the product ships) sends one
// telemetry sample per device per second while 10 commands a second go to random devices; afterwards every
// accepted sample is looked for through the time series API. Publish-to-readable is the time from a sample's
// making to its KP1 reply: the gateway replies once the point is durable and in memory (spec 4 `dcx`), and spot
// reads of `.../time-series/last` after replies check that it is readable by then.
// Then the same fleet for up to 30 s with the dashboard open (12c/12d), and over MQTT over TLS (6i-6l, full and
// quick runs). `--big-fleet` adds a fleet of 10,000 (6e-6h: 100 commands a second, the simulator spread over its
// default worker threads, the emulator's health answers timed throughout), each after the same fleet against a bare
// broker that answers at once (the floor, bench/lib/fleet-floor.js); see docs/performance.md.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workerCount } from '../../dist/cli/device/plan.js';
import { CHROMIUM } from '../lib/chromium.js';
import { watchDashboard } from '../lib/dashboard-watch.js';
import { runFleetFloor } from '../lib/fleet-floor.js';
import { coresNote, FLEET_VERSION, runFleet, SAMPLE_EVERY_MS } from '../lib/fleet-run.js';
import { runToEnd } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { percentile } from '../lib/stats.js';

const FSYNC = fileURLToPath(new URL('../references/fsync.js', import.meta.url));
const MB = 1024 * 1024;
/** The fleet run with the dashboard open (12c/12d) lasts at most this long. */
const DASHBOARD_SECONDS = 30;

/** The rows of a fleet run: their ids, and the targets that differ between the fleet of 1,000 and of 10,000. */
export const FLEET_ROWS = {
  thousand: { ids: ['6a', '6b', '6c', '6d'], p99Ms: 50, emulatorRssMb: 400 },
  /** `floor`: the same fleet against a bare broker first (bench/lib/fleet-floor.js), shown beside 6g and 6h. */
  tenThousand: {
    ids: ['6e', '6f', '6g', '6h'],
    p99Ms: 100,
    emulatorRssMb: 1024,
    simulatorRssMb: 1024,
    healthMs: 50,
    floor: true,
  },
  /**
   * The fleet of 1,000 with the dashboard open (figures 12c/12d, a run of its own: on two cores the browser's work
   * would count against 6c).
   */
  thousandWithDashboard: { ids: ['6a', '6b', '6c', '6d'], p99Ms: 50, emulatorRssMb: 400, dashboard: true },
  /** The fleet of 1,000 again, each device over MQTT over TLS (`--tls`, one-way, trusting the root certificate). */
  thousandOverTls: { ids: ['6i', '6j', '6k', '6l'], p99Ms: 50, emulatorRssMb: 400, tls: true },
};

/** What the same fleet met against the floor (bench/lib/fleet-floor.js), or nothing when it was not run. */
function floorNote(floor) {
  if (!floor) return '';
  const ms = (times, q) => (percentile(times, q) ?? 0).toFixed(0);
  return (
    `; the same simulator against a bare aedes broker answering at once (bench/references/fleet-floor.js, ` +
    `run first): p50 ${ms(floor.latencies, 50)} ms, p99 ${ms(floor.latencies, 99)}, max ` +
    `${ms(floor.latencies, 100)}; its health answers p50 ${ms(floor.healthTimes, 50)} ms, max ` +
    `${ms(floor.healthTimes, 100)}` +
    (floor.cores
      ? `; CPU in cores: the floor ${floor.cores.floor.toFixed(2)}, the simulator ${floor.cores.simulator.toFixed(2)}`
      : '')
  );
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
    if (bench.profile.bigFleet) {
      // The fleet of 10,000 may not get going on a small machine: its failure is its own row, the rows above stand.
      try {
        rows.push(...(await this.figures(bench, bench.profile.bigFleet, FLEET_ROWS.tenThousand)));
      } catch (err) {
        bench.log(`fleet of ${bench.profile.bigFleet.devices} failed: ${err.stack ?? err}`);
        const ids = FLEET_ROWS.tenThousand.ids;
        rows.push({
          id: `${ids[0]}-${ids.at(-1)}`,
          name: `fleet of ${bench.profile.bigFleet.devices}`,
          error: err.message,
          holds: false,
        });
      }
    }
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
    const state = await bench.writeState('fleet-state', { endpoints: devices, versions: [FLEET_VERSION] });
    const endpointIds = Object.values(state.document.collections.endpoints)
      .filter((e) => e.appVersion.name === FLEET_VERSION && e.endpointId.startsWith('bench-'))
      .map((e) => e.endpointId);
    state.document = undefined;
    const fsync = JSON.parse(
      await runToEnd(process.execPath, [FSYNC, bench.dir('fsync'), String(bench.profile.singleWrites)], {
        label: 'fsync ceiling',
      }),
    );
    const fleetFloor = spec.floor ? await runFleetFloor(bench, size) : undefined;
    const floorRss = await bench.using(
      () => bench.startReference('bare-http', bench.file('bare-fleet.json', { routes: {} })),
      async (server) => server.rss(),
    );

    return bench.using(
      () => bench.startEmulator({ dataDir: state.dir }),
      async (emulator) => {
        // Figures 12c/12d: the dashboard open on the overview and the endpoints page, watched while the fleet runs.
        const dashboard = spec.dashboard ? await watchDashboard(bench, emulator.url, seconds) : undefined;
        const {
          log,
          spot,
          stored,
          commandResults,
          healthTimes,
          peakRss,
          rssAtEnd,
          simulatorPeakRss,
          dashboardRows,
          cores,
          behindMs,
        } = await runFleet(bench, emulator, {
          devices,
          seconds,
          commandsPerSecond,
          warmupSeconds,
          endpointIds,
          tls: spec.tls,
          dashboard,
        });

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
              `(${devices} devices x ${seconds} s)${coresNote(cores)}`,
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
              `ms${otherCommands ? `; not 200: ${otherCommands}` : ''}` +
              (behindMs === undefined
                ? ''
                : `; the emulator was behind its devices: the simulator stopped ${(behindMs / 1000).toFixed(0)} s ` +
                  `after the run for the last commands`),
          }),
          measure({
            id: latencyId,
            name: `fleet of ${fleetName}: sample publish-to-readable p99`,
            unit: 'ms',
            value: p(99),
            reference: fsync.p99,
            referenceName: 'append + fdatasync p99',
            target: { on: 'value', op: '<', limit: spec.p99Ms },
            also: fleetFloor
              ? [
                  {
                    name: 'the floor: a bare aedes broker answering at once',
                    value: percentile(fleetFloor.latencies, 99),
                  },
                ]
              : [],
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
              `${spot.checked} spot reads of .../time-series/last right after a reply, each found its sample` +
              floorNote(fleetFloor),
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
