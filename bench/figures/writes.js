// Figure 3: durable writes (POST /epr/api/v1/endpoints) at an empty and at the large state, 1 and 50 clients.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from '../lib/processes.js';
import { measure } from '../lib/report.js';
import { writeJsonServerData } from '../lib/state.js';

const PATH = '/epr/api/v1/endpoints';
const BODY = { appVersion: { name: 'smart-meter-v1' }, metadata: { model: 'm1', serial: 'SN-1', location: { site: 'bench' } } };
const FSYNC = fileURLToPath(new URL('../references/fsync.js', import.meta.url));

async function writeRuns(bench, url, path = PATH) {
  const job = { url, path, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, warmupSeconds: 0 };
  const single = await bench.load({ ...job, connections: 1, amount: bench.profile.singleWrites });
  const concurrent = await bench.load({ ...job, connections: 50, amount: bench.profile.concurrentWrites });
  return { single, concurrent };
}


export default {
  name: 'writes',
  async run(bench) {
    const { profile } = bench;
    const { document } = await bench.largeState();
    const fsync = JSON.parse(await runToEnd(process.execPath, [FSYNC, bench.dir('fsync'), String(profile.singleWrites)], { label: 'fsync ceiling' }));
    const empty = await bench.using(() => bench.startEmulator({ dataDir: bench.dir('writes-empty') }), (server) => writeRuns(bench, server.url));
    const large = await writeRuns(bench, (await bench.sharedEmulator()).url);
    const expressRoutes = [{ method: 'POST', path: PATH, status: 201, location: `${PATH}/00000000-0000-0000-0000-000000000000`, json: { token: 'x'.repeat(16), status: 'Inactive' } }];
    const framework = await bench.using(
      () => bench.startReference('express-one-route', bench.file('express-writes.json', { routes: expressRoutes })),
      (server) => writeRuns(bench, server.url),
    );
    const data = writeJsonServerData(join(bench.dir('json-server-writes'), 'db.json'), document, { withCommands: false });
    const jsonServer = await bench.using(
      () => bench.startReference('json-server', data),
      (server) =>
        bench.load({ url: server.url, path: '/endpoints', method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections: 50, amount: profile.jsonServerWrites, warmupSeconds: 0 }),
    );

    const size = `${profile.endpoints} endpoints`;
    const p99 = (run) => `p99 ${run.p99.toFixed(2)} ms`;
    return [
      measure({ id: '3a', name: '1 client p50, empty state', unit: 'ms', value: empty.single.p50, reference: fsync.p50, referenceName: 'append + fdatasync', target: { on: 'ratio', op: '<', limit: 3 }, note: p99(empty.single) }),
      measure({ id: '3b', name: `1 client p50, ${size}`, unit: 'ms', value: large.single.p50, reference: empty.single.p50, referenceName: 'same, empty state', target: { on: 'ratio', op: '<=', limit: 1.5 }, also: [{ name: 'append + fdatasync', value: fsync.p50 }], note: p99(large.single) }),
      measure({ id: '3c', name: '50 clients, empty state', unit: 'req/s', value: empty.concurrent.rps, reference: framework.concurrent.rps, referenceName: 'express, no storing', target: { on: 'ratio', op: '>=', limit: 0.6 }, note: `p50 ${empty.concurrent.p50.toFixed(2)} ms, ${p99(empty.concurrent)}` }),
      measure({ id: '3d', name: `50 clients, ${size}`, unit: 'req/s', value: large.concurrent.rps, reference: framework.concurrent.rps, referenceName: 'express, no storing', target: { on: 'ratio', op: '>=', limit: 0.6 }, note: `p50 ${large.concurrent.p50.toFixed(2)} ms, ${p99(large.concurrent)}` }),
      measure({ id: '3e', name: `50 clients, ${size}, vs json-server`, unit: 'req/s', value: large.concurrent.rps, reference: jsonServer.rps, referenceName: 'json-server (no fsync)', target: { on: 'ratio', op: '>=', limit: 10 } }),
    ];
  },
};
