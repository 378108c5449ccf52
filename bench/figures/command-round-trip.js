// Figure 4: POST /cex/.../commands/{type}?waitTimeout=5 answered by simulated devices over MQTT through the
// embedded broker, with 1 and 20 concurrent invokers (one endpoint each), against the sum of what the path
// must pay anyway: a framework-ceiling request, two fsyncs (command stored, result stored), a raw MQTT round trip.
import { fileURLToPath } from 'node:url';
import { httpJson } from '../lib/http.js';
import { runToEnd, startServer, stopProcess } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { benchEndpointId } from '../lib/state.js';

const TYPE = 'benchEcho';
const INVOKERS = [1, 20];
const BODY = { interval: 30 };
const script = (path) => fileURLToPath(new URL(path, import.meta.url));

const commandPath = (endpointId) => `/cex/api/v1/endpoints/${endpointId}/commands/${TYPE}?waitTimeout=5`;

export default {
  name: 'command-round-trip',
  async run(bench) {
    const { profile } = bench;
    const { document } = await bench.largeState();
    const endpoints = Array.from({ length: Math.max(...INVOKERS) }, (_, i) => document.collections.endpoints[benchEndpointId(i + 1)]);
    const fsync = JSON.parse(await runToEnd(process.execPath, [script('../references/fsync.js'), bench.dir('fsync'), String(profile.singleWrites)], { label: 'fsync ceiling' }));

    const measured = await bench.using(
      async () => bench.startEmulator({ dataDir: await bench.largeStateCopy('commands') }),
      async (emulator) => {
        const { mqtt } = await httpJson(`${emulator.url}/_emu/health`);
        const devices = await startServer(
          process.execPath,
          [script('../lib/device-echo.js'), JSON.stringify({ mqttUrl: mqtt.url, commandType: TYPE, devices: endpoints.map((e) => ({ appVersion: e.appVersion.name, token: e.token })) })],
          { label: 'simulated devices' },
        );
        try {
          const out = {};
          for (const invokers of INVOKERS) {
            const paths = endpoints.slice(0, invokers).map((e) => commandPath(e.endpointId));
            out[invokers] = await bench.load({ url: emulator.url, paths, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections: invokers, amount: profile.roundTrips, expectStatus: 200 });
          }
          await stopProcess(devices.child);
          // The raw echo goes through the same broker while nothing else uses it.
          for (const invokers of INVOKERS) {
            out[`echo${invokers}`] = JSON.parse(await runToEnd(process.execPath, [script('../references/mqtt-echo.js'), mqtt.url, String(invokers), String(profile.roundTrips)], { label: 'mqtt echo' }));
          }
          return out;
        } finally {
          await stopProcess(devices.child);
        }
      },
    );
    const expressRoutes = [{ method: 'POST', path: '/cex/api/v1/endpoints/:endpointId/commands/:commandType', status: 200, json: { ok: true, echo: BODY } }];
    const framework = await bench.using(
      () => bench.startReference('express-one-route', bench.file('express-commands.json', { routes: expressRoutes })),
      async (server) => {
        const out = {};
        for (const invokers of INVOKERS) {
          const paths = endpoints.slice(0, invokers).map((e) => commandPath(e.endpointId));
          out[invokers] = await bench.load({ url: server.url, paths, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections: invokers, amount: profile.roundTrips });
        }
        return out;
      },
    );

    return INVOKERS.map((invokers, i) => {
      const run = measured[invokers];
      const parts = { request: framework[invokers].p50, fsyncs: 2 * fsync.p50, mqtt: measured[`echo${invokers}`].p50 };
      return measure({
        id: `4${'ab'[i]}`,
        name: `command round trip p50, ${invokers} invoker${invokers > 1 ? 's' : ''}`,
        unit: 'ms',
        value: run.p50,
        reference: parts.request + parts.fsyncs + parts.mqtt,
        referenceName: 'express + 2 fsyncs + MQTT echo',
        target: { on: 'ratio', op: '<', limit: 1.5 },
        note: `p99 ${run.p99.toFixed(2)} ms; reference = express ${parts.request.toFixed(2)} + fsyncs ${parts.fsyncs.toFixed(2)} + MQTT echo ${parts.mqtt.toFixed(2)} ms (p50s at the same concurrency)`,
      });
    });
  },
};
