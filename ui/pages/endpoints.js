import { api } from '../lib/api.js';
import { field, fill, h, time, title } from '../lib/dom.js';
import { on } from '../lib/events.js';

const PAGE_SIZE = 50;

/** A metadata value as typed: JSON when it parses (42, true, "x"), else the text itself. */
function metadataValue(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The endpoint register, a page at a time (the REST list's offset and limit), filtered on the server. "Online only"
 * pages the control plane's list of online endpoints instead, with the same filters: no id list in the URL.
 */
/** ` (TLS, X.509 meter-001)`, ` (basic meter-login)`, or nothing for a plain anonymous connection. */
function loginText(login) {
  if (!login) return '';
  const credential = login.credential
    ? `${login.credential.kind === 'x509' ? 'X.509' : 'basic'} ${login.credential.name}`
    : '';
  const parts = [login.tls ? 'TLS' : '', credential].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

export async function render(main, _params, { tenant } = {}) {
  const initial = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const apps = await api('GET', '/app-manager/api/v1/applications').catch(() => []);
  const connections = await api('GET', '/_emu/connections').catch(() => []);
  const online = new Set(connections.filter((c) => c.online).map((c) => c.endpointId));
  // How each online endpoint's connection logged in: over TLS or not, and with which credential.
  const logins = new Map(connections.filter((c) => c.login).map((c) => [c.endpointId, c.login]));

  const search = h('input', { type: 'search', placeholder: 'meter-001, meter-002', value: initial.get('id') ?? '' });
  const app = h(
    'select',
    {},
    h('option', { value: '' }, 'any'),
    apps.map((a) => h('option', { value: a.name }, a.displayName ?? a.name)),
  );
  const version = h(
    'select',
    {},
    h('option', { value: '' }, 'any'),
    apps.flatMap((a) => a.versions.map((v) => h('option', { value: v.name }, v.name))),
  );
  version.value = initial.get('version') ?? '';
  const key = h('input', { type: 'text', size: 10 });
  const value = h('input', { type: 'text', size: 10 });
  const onlineOnly = h('input', { type: 'checkbox' });
  const rows = h('tbody', {});
  const summary = h('p', { role: 'status', class: 'muted' });
  const previous = h('button', { class: 'secondary', type: 'button' }, 'Previous');
  const next = h('button', { class: 'secondary', type: 'button' }, 'Next');
  let offset = 0;

  async function load() {
    const query = { offset, limit: PAGE_SIZE, applicationName: app.value, applicationVersionName: version.value };
    const ids = search.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length > 0) query.endpointId = ids.join(',');
    if (key.value.trim()) query.metadataFilter = JSON.stringify({ [key.value.trim()]: metadataValue(value.value) });
    try {
      show(
        onlineOnly.checked
          ? await api('GET', '/_emu/connections/online', { query: { ...query, tenantId: tenant } })
          : await api('GET', '/epr/api/v1/endpoints', { query: { ...query, include: 'metadata' } }),
      );
    } catch (err) {
      fill(rows);
      summary.textContent = err.message;
    }
  }

  function show(page) {
    fill(
      rows,
      page.content.map((e) =>
        h(
          'tr',
          {},
          h('td', {}, h('a', { href: `#/endpoints/${encodeURIComponent(e.endpointId)}` }, e.endpointId)),
          h('td', {}, e.appVersion.name),
          h(
            'td',
            {},
            h('span', { class: `dot${online.has(e.endpointId) ? ' on' : ''}`, 'aria-hidden': 'true' }),
            online.has(e.endpointId)
              ? `online${loginText(logins.get(e.endpointId) ?? e.connection?.login)}`
              : 'offline',
          ),
          h(
            'td',
            { class: 'muted' },
            Object.entries(e.metadata ?? {})
              .slice(0, 4)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(', '),
          ),
          h('td', {}, time(e.createdDate)),
        ),
      ),
    );
    const last = Math.min(offset + PAGE_SIZE, page.totalElements);
    summary.textContent =
      page.totalElements === 0 ? 'No endpoints match.' : `Endpoints ${offset + 1}–${last} of ${page.totalElements}`;
    previous.disabled = offset === 0;
    next.disabled = last >= page.totalElements;
  }

  const apply = (event) => {
    event?.preventDefault();
    offset = 0;
    void load();
  };
  previous.onclick = () => {
    offset = Math.max(0, offset - PAGE_SIZE);
    void load();
  };
  next.onclick = () => {
    offset += PAGE_SIZE;
    void load();
  };
  for (const control of [app, version, onlineOnly]) control.addEventListener('change', apply);

  fill(
    main,
    title('Endpoints'),
    h(
      'form',
      { class: 'filters', role: 'search', onsubmit: apply },
      field('Endpoint ids', search),
      field('Application', app),
      field('Version', version),
      field('Metadata key', key),
      field('Metadata value', value),
      h('label', { class: 'check' }, onlineOnly, 'Online only'),
      h('button', {}, 'Search'),
    ),
    summary,
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Endpoint', 'Version', 'Connection', 'Metadata', 'Registered'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      rows,
    ),
    h('div', { class: 'pager' }, previous, next),
  );
  await load();
  return [
    on('connection', (c) => {
      if (c.online) online.add(c.endpointId);
      else online.delete(c.endpointId);
      void load();
    }),
    on('endpoint', (e) => e.change === 'registered' && load()),
  ];
}
