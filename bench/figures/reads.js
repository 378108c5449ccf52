// Figure 2: reads at the large state, 50 connections, against the physical, framework and json-server references;
// GET one endpoint also at 100,000 endpoints against json-server at the same size (2c).
import { join } from 'node:path';
import { httpJson, httpRequest } from '../lib/http.js';
import { measure } from '../lib/report.js';
import { benchEndpointId, writeJsonServerData } from '../lib/state.js';
import { medians, series } from '../lib/stats.js';

/** With --auth on the control plane (test tokens) needs an admin token: one chosen at start. */
const ADMIN_TOKEN = 'bench-admin-token';

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

/**
 * GET one endpoint at 100,000 endpoints (its own state and emulator), against json-server on the same records.
 * Express caps both near the same rate for a cheap route, so only the size shows what the lookup costs.
 */
async function hugeReads(bench) {
  const size = bench.profile.hugeEndpoints;
  const endpointId = benchEndpointId(Math.ceil(size / 2));
  const state = await bench.writeState('huge-state', { endpoints: size });
  const jsonServerData = writeJsonServerData(join(bench.dir('json-server-huge'), 'db.json'), state.document, {
    withCommands: false,
  });
  state.document = undefined;
  return bench.usingAll(
    {
      emulator: () => bench.startEmulator({ dataDir: state.dir }),
      jsonServer: () => bench.startReference('json-server', jsonServerData),
    },
    async ({ emulator, jsonServer }) => {
      const tasks = {
        emulator: () =>
          bench.load({ url: emulator.url, path: `/epr/api/v1/endpoints/${endpointId}`, connections: CONNECTIONS }),
        jsonServer: () =>
          bench.load({ url: jsonServer.url, path: `/endpoints/${endpointId}`, connections: CONNECTIONS }),
      };
      const results = await bench.interleave(tasks);
      return { ...medians(results, 'rps'), rounds: series(results, 'rps'), endpointId };
    },
  );
}

export default {
  name: 'reads',
  async run(bench) {
    const { document } = await bench.largeState();
    const emulator = await bench.sharedEmulator();
    const answers = {};
    for (const read of READS) answers[read.key] = await exactAnswer(emulator.url, read.path);
    const bareRoutes = Object.fromEntries(READS.map((r) => [`GET ${r.path}`, answers[r.key]]));
    const expressRoutes = READS.map((r) => ({
      method: 'GET',
      path: r.expressPath,
      status: 200,
      json: JSON.parse(answers[r.key].body),
    }));
    const jsonServerData = writeJsonServerData(join(bench.dir('json-server-reads'), 'db.json'), document, {
      withCommands: false,
    });

    const results = await bench.usingAll(
      {
        authOn: async () =>
          bench.startEmulator({
            dataDir: await bench.largeStateCopy('auth-on'),
            auth: 'on',
            args: ['--admin-token', ADMIN_TOKEN],
          }),
        bare: () => bench.startReference('bare-http', bench.file('bare-reads.json', { routes: bareRoutes })),
        framework: () =>
          bench.startReference('express-one-route', bench.file('express-reads.json', { routes: expressRoutes })),
        jsonServer: () => bench.startReference('json-server', jsonServerData),
      },
      async (servers) => {
        const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
        const { token } = await httpJson(`${servers.authOn.url}/_emu/token`, {
          method: 'POST',
          headers: admin,
          body: { scopes: ['endpoint:read'] },
        });
        const targets = {
          off: { url: emulator.url, path: (r) => r.path },
          on: { url: servers.authOn.url, path: (r) => r.path, headers: { authorization: `Bearer ${token}` } },
          bare: { url: servers.bare.url, path: (r) => r.path },
          framework: { url: servers.framework.url, path: (r) => r.path },
          jsonServer: { url: servers.jsonServer.url, path: (r) => r.jsonServerPath },
        };
        const tasks = {};
        for (const read of READS) {
          for (const [name, t] of Object.entries(targets)) {
            tasks[`${read.key}.${name}`] = () =>
              bench.load({ url: t.url, path: t.path(read), headers: t.headers, connections: CONNECTIONS });
          }
        }
        return bench.interleave(tasks);
      },
    );
    const rps = medians(results, 'rps');
    const rounds = series(results, 'rps');

    const huge = await hugeReads(bench);

    return READS.flatMap((read, i) => {
      const id = (n) => `2${'abcdef'[i * 3 + n]}`;
      const of = (name) => rps[`${read.key}.${name}`];
      const roundsOf = (name) => rounds[`${read.key}.${name}`];
      const physical = { name: 'bare node:http, same bytes', value: of('bare') };
      const framework = {
        reference: of('framework'),
        referenceName: 'express one route',
        referenceRounds: roundsOf('framework'),
      };
      return [
        measure({
          id: id(0),
          name: `${read.label}, auth off`,
          unit: 'req/s',
          value: of('off'),
          rounds: roundsOf('off'),
          ...framework,
          target: { on: 'ratio', op: '>=', limit: 0.8 },
          also: [physical],
        }),
        measure({
          id: id(1),
          name: `${read.label}, auth on`,
          unit: 'req/s',
          value: of('on'),
          rounds: roundsOf('on'),
          ...framework,
          target: { on: 'ratio', op: '>=', limit: 0.7 },
          also: [physical],
        }),
        read.key === 'one'
          ? measure({
              id: id(2),
              name: `${read.label} at ${bench.profile.hugeEndpoints} endpoints, auth off, vs json-server`,
              unit: 'req/s',
              value: huge.emulator,
              reference: huge.jsonServer,
              rounds: huge.rounds.emulator,
              referenceRounds: huge.rounds.jsonServer,
              referenceName: 'json-server, same size',
              target: { on: 'ratio', op: '>=', limit: 5 },
              note:
                `GET /epr/api/v1/endpoints/${huge.endpointId}, the middle of json-server's array (it finds a ` +
                `record by a scan, we by key); ` +
                `at ${bench.profile.endpoints} endpoints (2a): ${Math.round(of('off'))} vs ` +
                `${Math.round(of('jsonServer'))} req/s, ratio ${(of('off') / of('jsonServer')).toFixed(2)}`,
            })
          : measure({
              id: id(2),
              name: `${read.label}, auth off, vs json-server`,
              unit: 'req/s',
              value: of('off'),
              reference: of('jsonServer'),
              rounds: roundsOf('off'),
              referenceRounds: roundsOf('jsonServer'),
              referenceName: 'json-server',
              target: { on: 'ratio', op: '>=', limit: 5 },
            }),
      ];
    });
  },
};
