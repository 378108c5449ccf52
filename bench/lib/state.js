import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { directoryKey } from '../../dist/auth/keys.js';
import { DEFAULT_FIXTURES, resolveConfig } from '../../dist/config.js';
import { openContext } from '../../dist/emulator/context.js';
import { documentFromImport } from '../../dist/emulator/state.js';
import { newEndpoint } from '../../dist/services/epr/endpoints.js';
import { definitionCovering } from '../../dist/services/epts/definitions.js';
import { TIME_SERIES_POINTS } from '../../dist/services/epts/points.js';

const VERSIONS = ['smart-meter-v1', 'smart-meter-v2', 'tracker-v1'];
export const BENCH_TENANT = 'acme';
const TENANT = BENCH_TENANT;
const EPOCH = Date.parse('2024-01-01T00:00:00.000Z');

export const benchEndpointId = (i) => `bench-${String(i).padStart(6, '0')}`;

function metadata(i) {
  return {
    serial: `SN-${100000 + i}`,
    model: i % 2 ? 'm1' : 'm2',
    firmware: `1.${i % 7}.${i % 13}`,
    location: { lat: 48 + (i % 100) / 100, lon: 11 + (i % 50) / 50, site: `site-${i % 40}` },
    tags: ['bench', `batch-${i % 10}`],
    installedAt: new Date(EPOCH - i * 60_000).toISOString(),
  };
}

const RETENTION_MS = 720 * 3_600_000;

/**
 * An executed command as the command invocation service stores it (src/services/cex/commands.ts
 * CommandRecord): created in the last hours, so that its retention (720 h by default) is still running.
 */
function commandRecord(id, endpoint, createdMs) {
  const at = new Date(createdMs).toISOString();
  return {
    tenantId: endpoint.tenantId,
    appName: endpoint.appName,
    commandId: id,
    commandType: id % 2 ? 'reboot' : 'setInterval',
    endpointId: endpoint.endpointId,
    status: 'EXECUTED',
    statusCode: 200,
    reasonPhrase: 'OK',
    requestPayload: { interval: id % 60, reason: 'bench' },
    responsePayload: { ok: true, applied: id % 60 },
    createdAt: at,
    updatedAt: at,
    retainUntil: new Date(createdMs + RETENTION_MS).toISOString(),
  };
}

/**
 * The state the default fixtures seed, built by the emulator's own code in a scratch in-memory store;
 * `adapt` may change the fixture first (figure 11 puts filters of its own in).
 */
export async function fixtureDocument(adapt = (fixture) => fixture) {
  const ctx = await openContext(resolveConfig({ inMemory: true }), () => undefined);
  try {
    return await documentFromImport(ctx, adapt(JSON.parse(readFileSync(DEFAULT_FIXTURES, 'utf8'))), DEFAULT_FIXTURES);
  } finally {
    await ctx.store.close();
  }
}

/** Where the points of the bench's series end, one a minute before it: figure 7 asks for the last hour. */
export const POINTS_END = Date.parse('2024-06-01T00:00:00.000Z');
export const SERIES_NAME = 'temperature';

/**
 * `pointsPerEndpoint` points of series `temperature` (one value, a number) for every endpoint, one a minute up to
 * POINTS_END, as the store's snapshot keeps them (`series["time-series-points"]["<endpointId>/temperature"]`), and
 * the series' definition in every application, made by the time series service's own `definitionCovering`.
 */
function addSeries(ctx, document, endpoints, pointsPerEndpoint) {
  const definitions = (document.collections['time-series'] ??= {});
  const apps = new Set(endpoints.map((e) => `${e.tenantId}\u0000${e.appName}`));
  for (const key of apps) {
    const [tenantId, appName] = key.split('\u0000');
    const mutation = definitionCovering(ctx, tenantId, appName, SERIES_NAME, ['value'], new Date(EPOCH).toISOString());
    if (mutation) definitions[mutation.id] = mutation.v;
  }
  const points = ((document.series ??= {})[TIME_SERIES_POINTS.name] ??= {});
  endpoints.forEach((endpoint, i) => {
    const t = new Array(pointsPerEndpoint);
    const v = new Array(pointsPerEndpoint);
    for (let k = 0; k < pointsPerEndpoint; k++) {
      t[k] = POINTS_END - (pointsPerEndpoint - k) * 60_000;
      v[k] = 18 + ((i * 7 + k) % 80) / 10;
    }
    points[`${endpoint.endpointId}/${SERIES_NAME}`] = { t, v };
  });
}

/**
 * Writes a data directory in the store's own format (`state.json` snapshot, no log, a signing key): the default
 * fixtures (or `fixture`'s document) plus `endpoints` endpoints with metadata, `commands` executed commands and
 * `points` time series points spread evenly over the endpoints. Records come from the emulator's own
 * `newEndpoint`, so they are exactly what `POST /endpoints` stores. `versions`: the application versions the
 * endpoints go round (default three, in two applications).
 */
export async function writeLargeState(dir, { endpoints, commands = 0, points = 0, versions = VERSIONS, fixture }) {
  const document = fixture ?? (await fixtureDocument());
  const ctx = await openContext(resolveConfig({ inMemory: true }), () => undefined);
  await ctx.store.replace(document);
  const records = (document.collections.endpoints ??= {});
  const created = [];
  for (let i = 1; i <= endpoints; i++) {
    const endpointId = benchEndpointId(i);
    const input = {
      appVersion: { name: versions[i % versions.length] },
      endpointId,
      endpointToken: `${endpointId}-token`,
      metadata: metadata(i),
    };
    created.push((records[endpointId] = newEndpoint(ctx, TENANT, input, new Date(EPOCH + i * 1000).toISOString())));
  }
  if (points > 0) addSeries(ctx, document, created, Math.ceil(points / endpoints));
  await ctx.store.close();
  if (commands > 0) {
    const stored = (document.collections.commands ??= {});
    const firstCommandAt = Date.now() - commands * 100;
    for (let id = 1; id <= commands; id++) {
      stored[id] = commandRecord(id, records[benchEndpointId(1 + (id % endpoints))], firstCommandAt + id * 100);
    }
    document.counters.commands = Math.max(document.counters.commands ?? 0, commands);
  }
  mkdirSync(dir, { recursive: true });
  // The layout Store writes: indented by one space, a trailing newline.
  writeFileSync(join(dir, 'state.json'), `${JSON.stringify(document, null, 1)}\n`);
  const key = directoryKey(dir, undefined, (message) => {
    throw new Error(message);
  });
  await key.made();
  await key.settled();
  return document;
}

export function copyState(from, to) {
  cpSync(from, to, { recursive: true });
  return to;
}

/**
 * json-server's equivalent of the same state: the endpoints as the emulator presents them with
 * `include=metadata` (plus the `id` json-server routes by) and, for the start figure, the commands.
 */
export function writeJsonServerData(file, document, { withCommands }) {
  const endpoints = Object.values(document.collections.endpoints ?? {})
    .filter((e) => e.tenantId === TENANT)
    .map((e) => ({
      id: e.endpointId,
      endpointId: e.endpointId,
      createdDate: e.createdDate,
      appVersion: e.appVersion,
      metadata: e.metadata,
      metadataUpdatedDate: e.metadataUpdatedDate ?? e.createdDate,
      filters: [],
    }));
  const data = { endpoints };
  if (withCommands)
    data.commands = Object.values(document.collections.commands ?? {}).map((c) => ({ id: c.commandId, ...c }));
  writeFileSync(file, JSON.stringify(data, null, 2));
  return file;
}
