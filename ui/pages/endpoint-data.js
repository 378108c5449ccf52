import { api, downloadWithToken } from '../lib/api.js';
import { fill, h, time } from '../lib/dom.js';
import { lineChart } from '../lib/chart.js';
import { on } from '../lib/events.js';
import { coalesce } from '../lib/live.js';
import { notAllowed } from './allowed.js';

const WINDOW_MS = 60 * 60 * 1000;
const TELEMETRY_SCOPES = ['application:timeseries-config:read', 'endpoint:read'];

/** A scope the user lacks (a 403 answer, or known from the token ahead): shown as such, never as "no data". */
const missingScope = (can, scopes) => scopes.find((scope) => !can(scope));

/**
 * A chart per numeric value of each series of the endpoint's application, the last hour, redrawn on each sample;
 * values that are not numbers are listed, not drawn as empty charts.
 */
export async function telemetrySection(endpoint, appName, cleanups, can) {
  const id = endpoint.endpointId;
  const charts = h('div', { 'data-testid': 'telemetry' });
  async function load() {
    const lacking = missingScope(can, TELEMETRY_SCOPES);
    if (lacking) return fill(charts, notAllowed(lacking));
    // Read again each time: a device's first sample of a new series defines it.
    const config = await api('GET', '/epts/api/v1/time-series/config', { query: { applicationNames: appName } });
    const definitions = config[appName] ?? [];
    if (definitions.length === 0)
      return fill(charts, h('p', { class: 'muted' }, 'The application has no time series yet.'));
    // The emulator's clock (the points are dated by it); without the control plane, this machine's.
    const { now } = await api('GET', '/_emu/clock').catch(() => ({ now: new Date().toISOString() }));
    const to = new Date(new Date(now).getTime() + 1000);
    const chunks = await api('GET', `/epts/api/v1/applications/${encodeURIComponent(appName)}/time-series/data`, {
      query: {
        endpointId: id,
        timeSeriesName: definitions.map((d) => d.name).join(','),
        fromDate: new Date(to.getTime() - WINDOW_MS).toISOString(),
        toDate: to.toISOString(),
      },
    });
    const series = new Map();
    for (const chunk of chunks)
      for (const [name, points] of Object.entries(chunk[id] ?? {}))
        series.set(name, [...(series.get(name) ?? []), ...points]);
    const figures = [];
    const other = [];
    for (const definition of definitions) {
      for (const value of definition.values) {
        const all = series.get(definition.name) ?? [];
        const points = all
          .filter((p) => typeof p.values[value] === 'number')
          .map((p) => ({ t: Date.parse(p.timestamp), v: p.values[value] }));
        const label = value === 'value' ? definition.name : `${definition.name}.${value}`;
        const withValue = all.filter((p) => p.values[value] !== undefined);
        if (points.length === 0 && withValue.length > 0) {
          other.push(h('li', {}, h('code', {}, label), `: last ${JSON.stringify(withValue.at(-1).values[value])}`));
          continue;
        }
        const unit = definition.units?.[value] ?? definition.unit;
        figures.push(
          h(
            'figure',
            {},
            h(
              'figcaption',
              {},
              label,
              unit ? ` (${unit})` : '',
              h('span', { class: 'muted' }, ` · ${points.length} points in the last hour`),
            ),
            lineChart(label, points, { unit }),
          ),
        );
      }
    }
    fill(
      charts,
      figures,
      other.length > 0
        ? [h('p', { class: 'muted' }, 'Values that are not numbers (not charted):'), h('ul', {}, other)]
        : null,
    );
  }
  const show = () =>
    load().catch((err) =>
      fill(charts, err.status === 403 ? notAllowed(TELEMETRY_SCOPES[0]) : h('p', { class: 'error' }, err.message)),
    );
  // One read at a time; a sample that arrives during a read causes one more, so the last sample is always drawn.
  const reload = coalesce(show);
  cleanups.push(
    on('kp1', (entry) => {
      if (entry.endpointId === id && entry.topic?.includes('/dcx/') && entry.direction === 'in') void reload();
    }),
  );
  await show();
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'telemetry-h' },
    h('h2', { id: 'telemetry-h' }, 'Telemetry'),
    charts,
  );
}

/** The endpoint's blobs and files, with their downloads; the list follows uploads as they happen. */
export async function blobsSection(endpoint, appName, cleanups) {
  const base = `/bcx/api/v1/applications/${encodeURIComponent(appName)}`;
  const query = { endpointId: endpoint.endpointId, limit: 0, sort: 'DESC' };
  const list = h('div', { 'data-testid': 'blobs' });
  async function load() {
    const [blobs, files] = await Promise.all([
      api('GET', `${base}/binary-data/list`, { query }),
      api('GET', `${base}/files`, { query }).catch(() => ({ content: [] })),
    ]);
    const rows = [...blobs.map((b) => ({ kind: 'blob', ...b })), ...files.content.map((f) => ({ kind: 'file', ...f }))];
    fill(list, rows.length === 0 ? h('p', { class: 'muted' }, 'None uploaded.') : blobTable(rows));
  }
  const show = () =>
    load().catch((err) =>
      fill(list, err.status === 403 ? notAllowed('endpoint:read') : h('p', { class: 'error' }, err.message)),
    );
  const reload = coalesce(show);
  cleanups.push(
    on('request', (entry) => {
      // Uploads and deletions arrive over REST with the device's upload token: any change to blobs reloads.
      if (entry.method !== 'GET' && entry.path?.startsWith('/bcx/') && entry.status < 300) void reload();
    }),
  );
  await show();
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'blobs-h' },
    h('h2', { id: 'blobs-h' }, 'Blobs and files'),
    list,
  );
}

const blobTable = (rows) =>
  h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Kind', 'Name', 'Size', 'Created', 'Download'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            h('td', {}, r.kind),
            h('td', { class: 'token' }, r.name),
            h('td', {}, `${r.size} B`),
            h('td', {}, time(r.createdDate)),
            h(
              'td',
              {},
              h(
                'a',
                { href: new URL(r.url, location.origin).pathname, download: r.name, onclick: downloadWithToken },
                `Download ${r.name}`,
              ),
            ),
          ),
        ),
      ),
    ),
  );

/** The application's software and what the endpoint runs (its `softwareVersion` metadata), both live. */
export async function softwareSection(endpoint, appName, cleanups, can) {
  const id = endpoint.endpointId;
  const applied = h(
    'strong',
    { 'data-testid': 'software-applied' },
    endpoint.metadata?.softwareVersion ?? 'none reported',
  );
  const offered = h('div', {});
  async function loadOffered() {
    if (!can('application:software:read')) return fill(offered, notAllowed('application:software:read'));
    const software = await api('GET', `/otao/api/v1/applications/${encodeURIComponent(appName)}/software`);
    const list = Array.isArray(software) ? software : (software.content ?? []);
    fill(
      offered,
      list.length === 0
        ? h('p', { class: 'muted' }, 'The application offers no software.')
        : h(
            'ul',
            {},
            list.map((s) =>
              h(
                'li',
                {},
                `${s.softwareVersion ?? s.version ?? s.name}`,
                s.rolloutStrategy ? h('span', { class: 'muted' }, ` · ${s.rolloutStrategy}`) : '',
              ),
            ),
          ),
    );
  }
  const refreshApplied = coalesce(async () => {
    const fresh = await api('GET', `/epr/api/v1/endpoints/${encodeURIComponent(id)}`, {
      query: { include: 'metadata' },
    });
    applied.textContent = fresh.metadata?.softwareVersion ?? 'none reported';
  });
  cleanups.push(
    on('endpoint', (e) => e.endpointId === id && e.change === 'metadata' && void refreshApplied()),
    // A device's update report arrives over KP1 (cmx_ota).
    on('kp1', (entry) => entry.endpointId === id && entry.topic?.includes('cmx_ota') && void refreshApplied()),
  );
  await loadOffered().catch((err) =>
    fill(
      offered,
      err.status === 403 ? notAllowed('application:software:read') : h('p', { class: 'error' }, err.message),
    ),
  );
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'software-h' },
    h('h2', { id: 'software-h' }, 'Software'),
    h('p', {}, 'Applied: ', applied),
    offered,
  );
}
