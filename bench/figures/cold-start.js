// Figure 1: `platform-emu start` to the first 200 of /_emu/health, on an empty data directory and on the large state.
import { join } from 'node:path';
import { httpRequest } from '../lib/http.js';
import { measure } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { writeJsonServerData } from '../lib/state.js';

/** Spawn to first successful answer, then stop (the stop is not timed). */
async function timeToFirstAnswer(start, path) {
  const server = await start();
  try {
    const response = await httpRequest(`${server.url}${path}`);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status} after start: ${response.text}`);
    return performance.now() - server.startedAt;
  } finally {
    await server.stop();
  }
}

export default {
  name: 'cold-start',
  async run(bench) {
    const { document } = await bench.largeState();
    const bareRoutes = bench.file('bare-start.json', {
      routes: { 'GET /': { status: 200, contentType: 'text/plain', body: 'ok' } },
    });
    const fixtureData = writeJsonServerData(
      join(bench.dir('json-server-small'), 'db.json'),
      await bench.fixtureState(),
      { withCommands: false },
    );
    const largeData = writeJsonServerData(join(bench.dir('json-server-large'), 'db.json'), document, {
      withCommands: true,
    });
    const largeDir = await bench.largeStateCopy('cold-start');
    const firstEndpoint = `/endpoints/${Object.keys(document.collections.endpoints)[0]}`;

    const times = { floor: [], empty: [], large: [], jsonSmall: [], jsonLarge: [] };
    // Interleaved, so that a slow moment of the machine touches every series alike.
    for (let i = 0; i < bench.profile.coldStarts; i++) {
      times.floor.push(await timeToFirstAnswer(() => bench.startReference('bare-http', bareRoutes), '/'));
      times.empty.push(
        await timeToFirstAnswer(() => bench.startEmulator({ dataDir: bench.dir('empty') }), '/_emu/health'),
      );
      times.jsonSmall.push(
        await timeToFirstAnswer(() => bench.startReference('json-server', fixtureData), '/endpoints/meter-001'),
      );
      times.large.push(await timeToFirstAnswer(() => bench.startEmulator({ dataDir: largeDir }), '/_emu/health'));
      times.jsonLarge.push(
        await timeToFirstAnswer(() => bench.startReference('json-server', largeData), firstEndpoint),
      );
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    return [
      measure({
        id: '1a',
        name: 'cold start, empty data dir',
        unit: 'ms',
        value: m.empty,
        reference: m.floor,
        rounds: times.empty,
        referenceRounds: times.floor,
        referenceName: 'bare node:http',
        target: { on: 'ratio', op: '<', limit: 4 },
        also: [{ name: 'json-server on the default fixtures', value: m.jsonSmall }],
      }),
      measure({
        id: '1b',
        name: `cold start, ${bench.profile.endpoints} endpoints + ${bench.profile.commands} commands`,
        unit: 'ms',
        value: m.large,
        reference: m.jsonLarge,
        rounds: times.large,
        referenceName: 'json-server, same data',
        target: { on: 'value', op: '<', limit: 2000 },
        also: [{ name: 'bare node:http', value: m.floor }],
      }),
    ];
  },
};
