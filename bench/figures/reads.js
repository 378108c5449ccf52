// Figure 2: reads at the large state, 50 connections, against the physical, framework and json-server references.
import { join } from 'node:path';
import { httpJson, httpRequest } from '../lib/http.js';
import { measure } from '../lib/report.js';
import { benchEndpointId, writeJsonServerData } from '../lib/state.js';

const CONNECTIONS = 50;

const READS = [
  {
    key: 'one',
    label: 'GET one endpoint',
    path: `/epr/api/v1/endpoints/${benchEndpointId(1)}`,
    expressPath: '/epr/api/v1/endpoints/:endpointId',
    jsonServerPath: `/endpoints/${benchEndpointId(1)}`,
  },
  {
    key: 'list',
    label: 'GET 100 endpoints with metadata',
    path: '/epr/api/v1/endpoints?limit=100&include=metadata',
    expressPath: '/epr/api/v1/endpoints',
    jsonServerPath: '/endpoints?_page=1&_limit=100',
  },
];

async function exactAnswer(url, path) {
  const response = await httpRequest(url + path);
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
  return { status: 200, contentType: response.headers['content-type'], body: response.text };
}

/** Every read against one server, one after the other (nothing else is under load meanwhile); req/s per read. */
async function throughputs(bench, url, pathOf, headers) {
  const out = {};
  for (const read of READS) out[read.key] = (await bench.load({ url, path: pathOf(read), connections: CONNECTIONS, headers })).rps;
  return out;
}


export default {
  name: 'reads',
  async run(bench) {
    const { document } = await bench.largeState();
    const emulator = await bench.sharedEmulator();
    const answers = {};
    for (const read of READS) answers[read.key] = await exactAnswer(emulator.url, read.path);

    const off = await throughputs(bench, emulator.url, (r) => r.path);
    const on = await bench.using(
      async () => bench.startEmulator({ dataDir: await bench.largeStateCopy('auth-on'), auth: 'on' }),
      async (server) => {
        const { token } = await httpJson(`${server.url}/_emu/token`, { method: 'POST', body: { scopes: ['endpoint:read'] } });
        return throughputs(bench, server.url, (r) => r.path, { authorization: `Bearer ${token}` });
      },
    );
    const bareRoutes = Object.fromEntries(READS.map((r) => [`GET ${r.path}`, answers[r.key]]));
    const bare = await bench.using(
      () => bench.startReference('bare-http', bench.file('bare-reads.json', { routes: bareRoutes })),
      (server) => throughputs(bench, server.url, (r) => r.path),
    );
    const expressRoutes = READS.map((r) => ({ method: 'GET', path: r.expressPath, status: 200, json: JSON.parse(answers[r.key].body) }));
    const framework = await bench.using(
      () => bench.startReference('express-one-route', bench.file('express-reads.json', { routes: expressRoutes })),
      (server) => throughputs(bench, server.url, (r) => r.path),
    );
    const data = writeJsonServerData(join(bench.dir('json-server-reads'), 'db.json'), document, { withCommands: false });
    const jsonServer = await bench.using(
      () => bench.startReference('json-server', data),
      (server) => throughputs(bench, server.url, (r) => r.jsonServerPath),
    );

    return READS.flatMap((read, i) => {
      const id = (n) => `2${'abcdef'[i * 3 + n]}`;
      const k = read.key;
      const physical = { name: 'bare node:http, same bytes', value: bare[k] };
      return [
        measure({ id: id(0), name: `${read.label}, auth off`, unit: 'req/s', value: off[k], reference: framework[k], referenceName: 'express one route', target: { on: 'ratio', op: '>=', limit: 0.8 }, also: [physical] }),
        measure({ id: id(1), name: `${read.label}, auth on`, unit: 'req/s', value: on[k], reference: framework[k], referenceName: 'express one route', target: { on: 'ratio', op: '>=', limit: 0.7 }, also: [physical] }),
        measure({ id: id(2), name: `${read.label}, auth off, vs json-server`, unit: 'req/s', value: off[k], reference: jsonServer[k], referenceName: 'json-server', target: { on: 'ratio', op: '>=', limit: 5 } }),
      ];
    });
  },
};
