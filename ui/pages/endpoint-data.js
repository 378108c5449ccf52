import { api, downloadWithToken } from '../lib/api.js';
import { fill, h, time } from '../lib/dom.js';
import { lineChart } from '../lib/chart.js';
import { on } from '../lib/events.js';

const WINDOW_MS = 60 * 60 * 1000;

/** A chart per numeric value of each series of the endpoint's application, the last hour, redrawn on each sample. */
export async function telemetrySection(endpoint, appName, cleanups) {
  const id = endpoint.endpointId;
  const charts = h('div', { 'data-testid': 'telemetry' });
  async function load() {
    // Read again each time: a device's first sample of a new series defines it.
    const definitions =
      (await api('GET', '/epts/api/v1/time-series/config', { query: { applicationNames: appName } }).catch(() => ({})))[
        appName
      ] ?? [];
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
    for (const definition of definitions) {
      for (const value of definition.values) {
        const points = (series.get(definition.name) ?? [])
          .filter((p) => typeof p.values[value] === 'number')
          .map((p) => ({ t: Date.parse(p.timestamp), v: p.values[value] }));
        const label = value === 'value' ? definition.name : `${definition.name}.${value}`;
        figures.push(
          h(
            'figure',
            {},
            h('figcaption', {}, label, h('span', { class: 'muted' }, ` · ${points.length} points in the last hour`)),
            lineChart(label, points),
          ),
        );
      }
    }
    fill(charts, figures);
  }
  // One read at a time; a sample that arrives during a read causes one more, so the last sample is always drawn.
  let loading = false;
  let again = false;
  const reload = async () => {
    if (loading) return void (again = true);
    loading = true;
    try {
      do {
        again = false;
        await load().catch(() => undefined);
      } while (again);
    } finally {
      loading = false;
    }
  };
  cleanups.push(
    on('kp1', (entry) => {
      if (entry.endpointId === id && entry.topic?.includes('/dcx/') && entry.direction === 'in') void reload();
    }),
  );
  await load().catch((err) => fill(charts, h('p', { class: 'error' }, err.message)));
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'telemetry-h' },
    h('h2', { id: 'telemetry-h' }, 'Telemetry'),
    charts,
  );
}

/** The endpoint's blobs and files, with their downloads. */
export async function blobsSection(endpoint, appName) {
  const base = `/bcx/api/v1/applications/${encodeURIComponent(appName)}`;
  const query = { endpointId: endpoint.endpointId, limit: 0, sort: 'DESC' };
  const [blobs, files] = await Promise.all([
    api('GET', `${base}/binary-data/list`, { query }).catch(() => []),
    api('GET', `${base}/files`, { query }).catch(() => ({ content: [] })),
  ]);
  const rows = [...blobs.map((b) => ({ kind: 'blob', ...b })), ...files.content.map((f) => ({ kind: 'file', ...f }))];
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'blobs-h' },
    h('h2', { id: 'blobs-h' }, 'Blobs and files'),
    rows.length === 0
      ? h('p', { class: 'muted' }, 'None uploaded.')
      : h(
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
                h('td', {}, r.name),
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
}

/** The application's software and what the endpoint runs (its `softwareVersion` metadata). */
export async function softwareSection(endpoint, appName, cleanups) {
  const applied = h('strong', {}, endpoint.metadata?.softwareVersion ?? 'none reported');
  const software = await api('GET', `/otao/api/v1/applications/${encodeURIComponent(appName)}/software`).catch(
    () => [],
  );
  const list = Array.isArray(software) ? software : (software.content ?? []);
  cleanups.push(
    on('endpoint', async (e) => {
      if (e.endpointId !== endpoint.endpointId || e.change !== 'metadata') return;
      const fresh = await api('GET', `/epr/api/v1/endpoints/${encodeURIComponent(e.endpointId)}`, {
        query: { include: 'metadata' },
      });
      applied.textContent = fresh.metadata?.softwareVersion ?? 'none reported';
    }),
  );
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'software-h' },
    h('h2', { id: 'software-h' }, 'Software'),
    h('p', {}, 'Applied: ', applied),
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
