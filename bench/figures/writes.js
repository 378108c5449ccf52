// Figure 3: durable writes (POST /epr/api/v1/endpoints) at an empty and at the large state, 1 and 50 clients.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { writeJsonServerData } from '../lib/state.js';
import { median, medians, series } from '../lib/stats.js';

const PATH = '/epr/api/v1/endpoints';
const BODY = {
  appVersion: { name: 'smart-meter-v1' },
  metadata: { model: 'm1', serial: 'SN-1', location: { site: 'bench' } },
};
const FSYNC = fileURLToPath(new URL('../references/fsync.js', import.meta.url));

const writeJob = (url, path = PATH) => ({
  url,
  path,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: BODY,
});

export default {
  name: 'writes',
  async run(bench) {
    const { profile } = bench;
    const { document } = await bench.largeState();
    const fsyncCeiling = async () =>
      JSON.parse(
        await runToEnd(process.execPath, [FSYNC, bench.dir('fsync'), String(profile.singleWrites)], {
          label: 'fsync ceiling',
        }),
      );
    const shared = await bench.sharedEmulator();
    const expressRoutes = [
      {
        method: 'POST',
        path: PATH,
        status: 201,
        location: `${PATH}/00000000-0000-0000-0000-000000000000`,
        json: { token: 'x'.repeat(16), status: 'Inactive' },
      },
    ];
    const runs = await bench.usingAll(
      {
        empty: () => bench.startEmulator({ dataDir: bench.dir('writes-empty') }),
        framework: () =>
          bench.startReference('express-one-route', bench.file('express-writes.json', { routes: expressRoutes })),
        durable: () => bench.startReference('express-durable-post', bench.dir('express-durable-post')),
      },
      ({ empty, framework, durable }) => {
        const single = (url) => () => bench.load({ ...writeJob(url), connections: 1, amount: profile.singleWrites });
        const concurrent = (url) => () =>
          bench.load({ ...writeJob(url), connections: 50, amount: profile.concurrentWrites });
        return bench.interleave({
          fsync: fsyncCeiling,
          empty1: single(empty.url),
          large1: single(shared.url),
          framework1: single(framework.url),
          durable1: single(durable.url),
          empty50: concurrent(empty.url),
          large50: concurrent(shared.url),
          framework50: concurrent(framework.url),
        });
      },
    );
    const p50 = medians(runs, 'p50');
    const p99 = medians(runs, 'p99');
    const rps = medians(runs, 'rps');
    const p50Rounds = series(runs, 'p50');
    const durableFloor = p50Rounds.framework1.map((p, i) => p + p50Rounds.fsync[i]);
    const rpsRounds = series(runs, 'rps');
    const data = writeJsonServerData(join(bench.dir('json-server-writes'), 'db.json'), document, {
      withCommands: false,
    });
    const jsonServer = await bench.using(
      () => bench.startReference('json-server', data),
      (server) =>
        bench.load({
          ...writeJob(server.url, '/endpoints'),
          connections: 50,
          amount: profile.jsonServerWrites,
          warmupRequests: 0,
          requestTimeoutSeconds: 60,
        }),
    );

    const size = `${profile.endpoints} endpoints`;
    const tail = (key) => `p99 ${p99[key].toFixed(2)} ms`;
    const framework = {
      reference: rps.framework50,
      referenceName: 'express, no storing',
      referenceRounds: rpsRounds.framework50,
    };
    return [
      measure({
        id: '3a',
        name: '1 client p50, empty state',
        unit: 'ms',
        value: p50.empty1,
        // What a durable POST cannot go below: the framework's own answer plus one fsync (each round's sum).
        reference: median(durableFloor),
        rounds: p50Rounds.empty1,
        referenceRounds: durableFloor,
        referenceName: 'express POST, no storing, + append + fdatasync',
        target: { on: 'ratio', op: '<', limit: 1.3 },
        also: [
          { name: 'append + fdatasync alone', value: p50.fsync },
          // The two p50s above are measured apart; this server pays them in series, in one process.
          { name: 'express POST + one O_DSYNC append in the same server', value: p50.durable1 },
        ],
        note: `${tail('empty1')}; that server: ${tail('durable1')}`,
      }),
      measure({
        id: '3b',
        name: `1 client p50, ${size}`,
        unit: 'ms',
        value: p50.large1,
        reference: p50.empty1,
        rounds: p50Rounds.large1,
        referenceRounds: p50Rounds.empty1,
        referenceName: 'same, empty state',
        target: { on: 'ratio', op: '<=', limit: 1.5 },
        also: [{ name: 'append + fdatasync', value: p50.fsync }],
        note: tail('large1'),
      }),
      measure({
        id: '3c',
        name: '50 clients, empty state',
        unit: 'req/s',
        value: rps.empty50,
        rounds: rpsRounds.empty50,
        ...framework,
        target: { on: 'ratio', op: '>=', limit: 0.6 },
        note: `p50 ${p50.empty50.toFixed(2)} ms, ${tail('empty50')}`,
      }),
      measure({
        id: '3d',
        name: `50 clients, ${size}`,
        unit: 'req/s',
        value: rps.large50,
        rounds: rpsRounds.large50,
        ...framework,
        target: { on: 'ratio', op: '>=', limit: 0.6 },
        note: `p50 ${p50.large50.toFixed(2)} ms, ${tail('large50')}`,
      }),
      measure({
        id: '3e',
        name: `50 clients, ${size}, vs json-server`,
        unit: 'req/s',
        value: rps.large50,
        reference: jsonServer.rps,
        rounds: rpsRounds.large50,
        referenceName: 'json-server (no fsync)',
        target: { on: 'ratio', op: '>=', limit: 10 },
      }),
    ];
  },
};
