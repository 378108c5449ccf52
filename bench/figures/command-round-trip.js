// Figure 4: POST /cex/.../commands/{type}?waitTimeout=5 answered by simulated devices over MQTT through the
// embedded broker, with 1 and 20 concurrent invokers (one endpoint each), against the sum of what the path
// must pay anyway: a framework-ceiling request, two fsyncs (command stored, result stored), a raw MQTT round trip;
// and (4c) the same with 1 invoker answered by `platform-emu device simulate`, the device a user starts, against 4a.
import { fileURLToPath } from 'node:url';
import { httpJson } from '../lib/http.js';
import { runToEnd, startServer, stopProcess } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { benchEndpointId } from '../lib/state.js';
import { median, medians, series } from '../lib/stats.js';

const TYPE = 'benchEcho';
const INVOKERS = [1, 20];
const BODY = { interval: 30 };
const script = (path) => fileURLToPath(new URL(path, import.meta.url));
const BIN = script('../../bin/platform-emu.js');

const commandPath = (endpointId) => `/cex/api/v1/endpoints/${endpointId}/commands/${TYPE}?waitTimeout=5`;

/** The command floor (`references/command-floor.js`): its HTTP and MQTT URLs, and a stop. */
async function startFloor(jobFile) {
  const server = await startServer(process.execPath, [script('../references/command-floor.js'), jobFile], {
    label: 'command floor',
    ready: /http:\/\/\S+ mqtt:\/\/\S+/,
  });
  const [url, mqttUrl] = server.url.split(' ');
  return { url, mqttUrl, stop: () => stopProcess(server.child) };
}

export default {
  name: 'command-round-trip',
  async run(bench) {
    const { profile } = bench;
    const { document } = await bench.largeState();
    const endpoints = Array.from(
      { length: Math.max(...INVOKERS) },
      (_, i) => document.collections.endpoints[benchEndpointId(i + 1)],
    );
    // Its own endpoint: the echo devices answer the first ones.
    const simulated = document.collections.endpoints[benchEndpointId(Math.max(...INVOKERS) + 1)];
    const fsyncCeiling = async () =>
      JSON.parse(
        await runToEnd(
          process.execPath,
          [script('../references/fsync.js'), bench.dir('fsync'), String(profile.singleWrites)],
          { label: 'fsync ceiling' },
        ),
      );
    const expressRoutes = [
      {
        method: 'POST',
        path: '/cex/api/v1/endpoints/:endpointId/commands/:commandType',
        status: 200,
        json: { ok: true, echo: BODY },
      },
    ];
    const invoke =
      (url, invokers, extra = {}) =>
      () =>
        bench.load({
          url,
          paths: endpoints.slice(0, invokers).map((e) => commandPath(e.endpointId)),
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: BODY,
          connections: invokers,
          amount: profile.roundTrips,
          ...extra,
        });
    const floorJob = bench.file('command-floor.json', {
      dir: bench.dir('command-floor'),
      endpoints: endpoints.map((e) => ({ endpointId: e.endpointId, appVersion: e.appVersion.name, token: e.token })),
    });
    const runs = await bench.usingAll(
      {
        emulator: async () => bench.startEmulator({ dataDir: await bench.largeStateCopy('commands') }),
        framework: () =>
          bench.startReference('express-one-route', bench.file('express-commands.json', { routes: expressRoutes })),
        floor: () => startFloor(floorJob),
      },
      async ({ emulator, framework, floor }) => {
        const { mqtt } = await httpJson(`${emulator.url}/_emu/health`);
        const deviceJob = {
          mqttUrl: mqtt.url,
          commandType: TYPE,
          devices: endpoints.map((e) => ({ appVersion: e.appVersion.name, token: e.token })),
        };
        const echoDevices = (job, label) =>
          startServer(process.execPath, [script('../lib/device-echo.js'), JSON.stringify(job)], { label });
        const devices = await echoDevices(deviceJob, 'simulated devices');
        const floorDevices = await echoDevices({ ...deviceJob, mqttUrl: floor.mqttUrl }, 'command floor devices');
        // As a user starts it; it is ready once it reports the device connected.
        const simulator = await startServer(
          process.execPath,
          [
            BIN,
            'device',
            'simulate',
            '--app-version',
            simulated.appVersion.name,
            '--token',
            simulated.token,
            '--url',
            emulator.url,
            '--json',
          ],
          { label: 'platform-emu device simulate', ready: /"event":"connected"/ },
        );
        // The raw echo uses the same broker and library on topics of its own, in its own process.
        const echo = (invokers) => async () =>
          JSON.parse(
            await runToEnd(
              process.execPath,
              [script('../references/mqtt-echo.js'), mqtt.url, String(invokers), String(profile.roundTrips)],
              { label: 'mqtt echo' },
            ),
          );
        try {
          const tasks = { fsync: fsyncCeiling };
          for (const invokers of INVOKERS) {
            // A command answered after the 5 s wait is a 202: only 200s count as round trips.
            tasks[`commands${invokers}`] = invoke(emulator.url, invokers, { expectStatus: 200 });
            tasks[`echo${invokers}`] = echo(invokers);
            tasks[`framework${invokers}`] = invoke(framework.url, invokers);
            tasks[`floor${invokers}`] = invoke(floor.url, invokers, { expectStatus: 200 });
          }
          tasks.simulate1 = () =>
            bench.load({
              url: emulator.url,
              paths: [commandPath(simulated.endpointId)],
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: BODY,
              connections: 1,
              amount: profile.roundTrips,
              expectStatus: 200,
            });
          return await bench.interleave(tasks);
        } finally {
          await Promise.all([devices, floorDevices, simulator].map(({ child }) => stopProcess(child)));
        }
      },
    );
    const p50 = medians(runs, 'p50');
    const p99 = medians(runs, 'p99');
    const rounds = series(runs, 'p50');

    const rows = INVOKERS.map((invokers, i) => {
      const parts = { request: p50[`framework${invokers}`], fsyncs: 2 * p50.fsync, mqtt: p50[`echo${invokers}`] };
      // Each round's sum of the three, measured in that round.
      const referenceRounds = rounds.fsync.map(
        (fsync, round) => rounds[`framework${invokers}`][round] + 2 * fsync + rounds[`echo${invokers}`][round],
      );
      return measure({
        id: `4${'ab'[i]}`,
        name: `command round trip p50, ${invokers} invoker${invokers > 1 ? 's' : ''}`,
        unit: 'ms',
        value: p50[`commands${invokers}`],
        reference: median(referenceRounds),
        rounds: rounds[`commands${invokers}`],
        referenceRounds,
        referenceName: 'express + 2 fsyncs + MQTT echo',
        target: { on: 'ratio', op: '<', limit: 1.5 },
        // The reference adds p50s measured apart; this server pays the same steps in series, in one process.
        also: [{ name: 'express + aedes + 2 O_DSYNC appends in one server', value: p50[`floor${invokers}`] }],
        note:
          `p99 ${p99[`commands${invokers}`].toFixed(2)} ms (that server: ${p99[`floor${invokers}`].toFixed(2)} ms); ` +
          `reference = the median of each round's express + fsyncs + MQTT echo (p50s at the same concurrency; ` +
          `their medians ${parts.request.toFixed(2)}, ${parts.fsyncs.toFixed(2)} and ${parts.mqtt.toFixed(2)} ms)`,
      });
    });
    rows.push(
      measure({
        id: '4c',
        name: 'command round trip p50, 1 invoker, answered by `device simulate`',
        unit: 'ms',
        value: p50.simulate1,
        reference: p50.commands1,
        rounds: rounds.simulate1,
        referenceRounds: rounds.commands1,
        referenceName: "4a, the bench's echo device",
        target: { on: 'ratio', op: '<', limit: 1.5 },
        note:
          `p99 ${p99.simulate1.toFixed(2)} ms (4a: ${p99.commands1.toFixed(2)} ms); the CLI's device answers ` +
          `with its default echo rule over its own KP1 client (requests at QoS 0, its default)`,
      }),
    );
    return rows;
  },
};
