// Figure 11: endpoint filters at fleet size. `GET /epr/api/v1/endpoints?applicationName=...&include=filters` at
// 24,000 endpoints of one application with five active filters of it (the fixtures' three, and two of the bench's,
// one a `$regex`), against the same list
// without `include=filters`, on the same emulator, 50 connections.
import { httpRequest } from '../lib/http.js';
import { measure } from '../lib/report.js';
import { fixtureDocument } from '../lib/state.js';
import { medians, series } from '../lib/stats.js';

const CONNECTIONS = 50;
const APP = 'smart-meter';

/** Two filters over the metadata the bench's endpoints have (bench/lib/state.js), one of them a `$regex`. */
const FILTERS = [
  {
    filterId: 'firmware-1-0-to-1-3',
    description: 'Firmware 1.0.x to 1.3.x',
    match: { firmware: { $regex: '^1\\.[0-3]\\.' } },
  },
  { filterId: 'model-m1', description: 'Model m1', match: { model: { $in: ['m1'] } } },
];

/** The default fixtures (three active filters of the application, and an inactive one) with the two above. */
const withBenchFilters = (fixture) => ({
  ...fixture,
  endpointFilters: [...fixture.endpointFilters, ...FILTERS.map((f) => ({ applicationName: APP, ...f }))],
});

export default {
  name: 'filters',
  async run(bench) {
    const endpoints = bench.profile.filterEndpoints;
    const state = await bench.writeState('filters-state', {
      endpoints,
      versions: ['smart-meter-v1', 'smart-meter-v2'],
      fixture: await fixtureDocument(withBenchFilters),
    });
    state.document = undefined;
    return bench.using(
      () => bench.startEmulator({ dataDir: state.dir }),
      async (emulator) => {
        const paths = {
          filters: `/epr/api/v1/endpoints?applicationName=${APP}&include=filters`,
          plain: `/epr/api/v1/endpoints?applicationName=${APP}`,
        };
        const answer = JSON.parse((await httpRequest(emulator.url + paths.filters)).text);
        const matched = answer.content.reduce((n, e) => n + e.filters.length, 0);
        if (answer.totalElements < endpoints || matched === 0)
          throw new Error(
            `${paths.filters}: ${answer.totalElements} endpoints, ${matched} filter matches on the first page`,
          );
        const results = await bench.interleave({
          filters: () => bench.load({ url: emulator.url, path: paths.filters, connections: CONNECTIONS }),
          plain: () => bench.load({ url: emulator.url, path: paths.plain, connections: CONNECTIONS }),
        });
        const rps = medians(results, 'rps');
        const rounds = series(results, 'rps');
        return [
          measure({
            id: '11a',
            name: `GET endpoints of an application with include=filters, ${answer.totalElements} endpoints, 5 filters`,
            unit: 'req/s',
            value: rps.filters,
            reference: rps.plain,
            rounds: rounds.filters,
            referenceRounds: rounds.plain,
            referenceName: 'same list without include=filters',
            target: { on: 'ratio', op: '>=', limit: 0.5 },
            note: `first page of 100; ${matched} filter matches on it; one filter is a $regex`,
          }),
        ];
      },
    );
  },
};
