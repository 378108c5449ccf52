// Figure 7: a million points. Cold start on 10,000 endpoints with 1,000,000 time series points (100 a endpoint,
// one a minute), RSS at that state, and the two reads of the time series API against GET one endpoint on the same
// emulator: a read of one endpoint's series must cost about what reading its record does, never a scan.
import { httpRequest } from '../lib/http.js';
import { measure } from '../lib/report.js';
import { benchEndpointId, POINTS_END, SERIES_NAME } from '../lib/state.js';
import { median, medians, series } from '../lib/stats.js';

const CONNECTIONS = 50;
const MB = 1024 * 1024;

/** Spawn to the first 200 of `path`; the server stays up. */
async function timeToAnswer(start, path) {
  const server = await start();
  const response = await httpRequest(`${server.url}${path}`);
  const ms = performance.now() - server.startedAt;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status} after start: ${response.text}`);
  return { server, ms };
}

async function checkedPath(url, path, check) {
  const response = await httpRequest(url + path);
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
  const problem = check(JSON.parse(response.text));
  if (problem) throw new Error(`GET ${path}: ${problem}`);
  return path;
}

export default {
  name: 'time-series',
  async run(bench) {
    const { endpoints, points, coldStarts } = bench.profile.series;
    const state = await bench.writeState('series-state', { endpoints, points });
    // An endpoint in the middle, of the application `smart-meter`.
    let index = Math.ceil(endpoints / 2);
    while (state.document.collections.endpoints[benchEndpointId(index)].appName !== 'smart-meter') index++;
    const endpoint = state.document.collections.endpoints[benchEndpointId(index)];
    state.document = undefined;
    const bareRoutes = bench.file('bare-series.json', {
      routes: { 'GET /': { status: 200, contentType: 'text/plain', body: 'ok' } },
    });

    // Cold starts, interleaved with the floor; the last emulator stays up for the rest of the figure.
    const times = { emulator: [], floor: [] };
    let emulator;
    try {
      for (let i = 0; i < coldStarts; i++) {
        const floor = await timeToAnswer(() => bench.startReference('bare-http', bareRoutes), '/');
        times.floor.push(floor.ms);
        await floor.server.stop();
        await emulator?.stop();
        const started = await timeToAnswer(() => bench.startEmulator({ dataDir: state.dir }), '/_emu/health');
        times.emulator.push(started.ms);
        emulator = started.server;
      }
      const rssAtReady = emulator.rss();
      const rss = await bench.settledRss(emulator);

      const hour =
        `fromDate=${new Date(POINTS_END - 3_600_000).toISOString()}&toDate=` +
        `${new Date(POINTS_END).toISOString()}&includeTime=both`;
      const base = `/epts/api/v1/applications/${endpoint.appName}`;
      const perEndpoint = Math.ceil(points / endpoints);
      const paths = {
        one: `/epr/api/v1/endpoints/${endpoint.endpointId}`,
        last: await checkedPath(
          emulator.url,
          `${base}/time-series/last?endpointId=${endpoint.endpointId}&timeSeriesName=${SERIES_NAME}`,
          (answer) =>
            answer[endpoint.endpointId]?.[SERIES_NAME]?.length === 1
              ? null
              : `expected one point, got ${JSON.stringify(answer).slice(0, 200)}`,
        ),
        data: await checkedPath(
          emulator.url,
          `${base}/time-series/data?endpointId=${endpoint.endpointId}&timeSeriesName=${SERIES_NAME}&${hour}`,
          (answer) => {
            const got = answer.flatMap((chunk) => chunk[endpoint.endpointId]?.[SERIES_NAME] ?? []).length;
            return got === Math.min(60, perEndpoint)
              ? null
              : `expected ${Math.min(60, perEndpoint)} points in the hour, got ${got}`;
          },
        ),
      };
      const results = await bench.interleave(
        Object.fromEntries(
          Object.entries(paths).map(([key, path]) => [
            key,
            () => bench.load({ url: emulator.url, path, connections: CONNECTIONS }),
          ]),
        ),
      );
      const rps = medians(results, 'rps');
      const rounds = series(results, 'rps');
      const floorRss = await bench.using(
        () => bench.startReference('bare-http', bareRoutes),
        async (server) => server.rss(),
      );

      const size = `${endpoints} endpoints + ${points} points`;
      const one = { reference: rps.one, referenceName: 'GET one endpoint, same emulator', referenceRounds: rounds.one };
      return [
        measure({
          id: '7a',
          name: `cold start, ${size}`,
          unit: 'ms',
          value: median(times.emulator),
          reference: median(times.floor),
          rounds: times.emulator,
          referenceName: 'bare node:http',
          target: { on: 'value', op: '<', limit: 2000 },
          note: `median of ${coldStarts}: ${times.emulator.map((t) => Math.round(t)).join(', ')} ms`,
        }),
        measure({
          id: '7b',
          name: `RSS at ${size}`,
          unit: 'MB',
          value: rss / MB,
          reference: floorRss / MB,
          referenceName: 'bare node:http',
          target: { on: 'value', op: '<', limit: 500 },
          note:
            `idle ${bench.profile.settleSeconds} s after start; ${(rssAtReady / MB).toFixed(1)} MB the moment ` +
            `it was ready`,
        }),
        measure({
          id: '7c',
          name: 'GET .../time-series/last, one endpoint',
          unit: 'req/s',
          value: rps.last,
          rounds: rounds.last,
          ...one,
          target: { on: 'ratio', op: '>=', limit: 0.5 },
        }),
        measure({
          id: '7d',
          name: 'GET .../time-series/data, one endpoint, one hour',
          unit: 'req/s',
          value: rps.data,
          rounds: rounds.data,
          ...one,
          target: { on: 'ratio', op: '>=', limit: 0.5 },
          note: `${Math.min(60, perEndpoint)} points of the endpoint's ${perEndpoint} (one a minute), bounds included`,
        }),
      ];
    } finally {
      await emulator?.stop();
    }
  },
};
