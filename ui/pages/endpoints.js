import { api } from '../lib/api.js';
import { field, fill, h, perFrame, time, title } from '../lib/dom.js';
import { heldEvents } from '../lib/events.js';
import { coalesce } from '../lib/live.js';

const PAGE_SIZE = 50;

/** A metadata value as typed: JSON when it parses (42, true, "x"), else the text itself. */
function metadataValue(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** ` (TLS, X.509 meter-001)`, ` (basic meter-login)`, or nothing for a plain anonymous connection. */
function loginText(login) {
  if (!login) return '';
  const credential = login.credential
    ? `${login.credential.kind === 'x509' ? 'X.509' : 'basic'} ${login.credential.name}`
    : '';
  const parts = [login.tls ? 'TLS' : '', credential].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/**
 * The endpoint register, a page at a time (the REST list's offset and limit), filtered on the server. "Online only"
 * pages the control plane's list of online endpoints instead, with the same filters: no id list in the URL.
 * Live without refetching the list: connection events change the rows shown, registrations the count (and fill the
 * last page's room); only the shown page's connection states are read. Events that come during a read are held and
 * applied after it; a registration among them may be in the read's count already, so it costs one more read instead.
 */
export async function render(main, _params, { tenant, can, health } = {}) {
  const events = heldEvents(['connection', 'endpoint']);
  const admin = can('emulator:admin');
  const shownTenant = tenant ?? health?.defaultTenant;
  const initial = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const apps = await api('GET', '/app-manager/api/v1/applications').catch(() => []);
  const online = new Set();
  // How each online endpoint's connection logged in: over TLS or not, and with which credential.
  const logins = new Map();
  const statusCells = new Map();

  const search = h('input', {
    type: 'search',
    placeholder: 'e.g. meter-001, meter-002',
    value: initial.get('id') ?? '',
  });
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
  const summary = h('p', { role: 'status', class: 'muted', 'data-testid': 'endpoints-summary' });
  const changed = h('p', { class: 'muted', hidden: true });
  const previous = h('button', { class: 'secondary', type: 'button' }, 'Previous');
  const next = h('button', { class: 'secondary', type: 'button' }, 'Next');
  let offset = 0;
  let total = 0;
  let shown = [];
  let registeredDuringRead = false;
  /** Reads of the list so far: rows read for registrations are not added to a list read again since. */
  let loads = 0;

  const filtered = () =>
    Boolean(search.value.trim() || app.value || version.value || key.value.trim() || onlineOnly.checked);

  async function read() {
    do {
      registeredDuringRead = false;
      await events.readThenFollow(load, handlers);
    } while (registeredDuringRead);
  }
  /** One read at a time; asked again during one, one more after it. */
  const reload = coalesce(read);

  async function load() {
    loads++;
    const query = { offset, limit: PAGE_SIZE, applicationName: app.value, applicationVersionName: version.value };
    const ids = search.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length > 0) query.endpointId = ids.join(',');
    if (key.value.trim()) query.metadataFilter = JSON.stringify({ [key.value.trim()]: metadataValue(value.value) });
    changed.hidden = true;
    try {
      const page = onlineOnly.checked
        ? await api('GET', '/_emu/connections/online', { query: { ...query, tenantId: tenant } })
        : await api('GET', '/epr/api/v1/endpoints', { query: { ...query, include: 'metadata' } });
      shown = page.content;
      total = page.totalElements;
      await readConnections(shown);
      show();
    } catch (err) {
      fill(rows);
      summary.textContent = err.message;
    }
  }

  /** The connection states of the endpoints shown, and no others. */
  async function readConnections(endpoints) {
    if (!admin || endpoints.length === 0) return;
    const states = await api('GET', '/_emu/connections', {
      query: { endpointId: endpoints.map((e) => e.endpointId).join(',') },
    }).catch(() => []);
    for (const state of states) {
      if (state.online) online.add(state.endpointId);
      if (state.login) logins.set(state.endpointId, state.login);
    }
  }

  const statusCell = (id) => {
    const cell = h('td', { 'data-testid': `connection-${id}` });
    statusCells.set(id, cell);
    showStatus(id);
    return cell;
  };
  const showStatus = (id) => {
    const cell = statusCells.get(id);
    if (!cell) return;
    if (!admin) return fill(cell, h('span', { class: 'muted' }, 'unknown'));
    const on = online.has(id);
    fill(
      cell,
      h('span', { class: `dot${on ? ' on' : ''}`, 'aria-hidden': 'true' }),
      on ? `online${loginText(logins.get(id))}` : 'offline',
    );
  };

  const row = (e) =>
    h(
      'tr',
      {},
      h('td', { class: 'token' }, h('a', { href: `#/endpoints/${encodeURIComponent(e.endpointId)}` }, e.endpointId)),
      h('td', { class: 'token' }, e.appVersion.name),
      statusCell(e.endpointId),
      h(
        'td',
        { class: 'metadata muted' },
        Object.entries(e.metadata ?? {})
          .slice(0, 4)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(', '),
      ),
      h('td', {}, time(e.createdDate)),
    );

  function show() {
    statusCells.clear();
    fill(rows, shown.map(row));
    showSummary();
  }
  function showSummary() {
    const last = Math.min(offset + shown.length, total);
    summary.textContent = total === 0 ? 'No endpoints match.' : `Endpoints ${offset + 1}–${last} of ${total}`;
    previous.disabled = offset === 0;
    next.disabled = offset + PAGE_SIZE >= total;
  }

  // Registrations, a frame's worth at a time: the count grows; new endpoints fill the shown page's room in one read.
  const registered = perFrame(async (ids) => {
    if (filtered()) return void (changed.hidden = false);
    total += ids.length;
    const lastPage = offset + shown.length >= total - ids.length;
    const fitting = lastPage ? ids.slice(0, Math.max(0, PAGE_SIZE - shown.length)) : [];
    if (fitting.length > 0) {
      const list = loads;
      const page = await api('GET', '/epr/api/v1/endpoints', {
        query: { endpointId: fitting.join(','), include: 'metadata', limit: fitting.length },
      }).catch(() => ({ content: [] }));
      await readConnections(page.content);
      // The list was read again meanwhile (a filter, a page, a refresh): that read has these endpoints, or not here.
      if (list !== loads) return;
      shown.push(...page.content);
      rows.append(...page.content.map(row));
    }
    showSummary();
  });
  const connection = perFrame((changes) => {
    for (const c of changes) {
      if (c.online) online.add(c.endpointId);
      else online.delete(c.endpointId);
      logins.delete(c.endpointId);
      showStatus(c.endpointId);
    }
    // The online-only list itself changes: say so rather than read it again at every connection.
    if (onlineOnly.checked) changed.hidden = false;
  });

  const handlers = {
    connection,
    endpoint: (e, held) => {
      if (e.change !== 'registered' || e.tenantId !== shownTenant) return;
      if (held) registeredDuringRead = true;
      else registered(e.endpointId);
    },
  };

  const apply = (event) => {
    event?.preventDefault();
    offset = 0;
    void reload();
  };
  previous.onclick = () => {
    offset = Math.max(0, offset - PAGE_SIZE);
    void reload();
  };
  next.onclick = () => {
    offset += PAGE_SIZE;
    void reload();
  };
  for (const control of [app, version, onlineOnly]) control.addEventListener('change', apply);
  fill(
    changed,
    'The list has changed since it was read. ',
    h('button', { class: 'secondary', type: 'button', onclick: () => reload() }, 'Refresh'),
  );

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
    changed,
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'endpoints-table' },
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
    ),
    h('div', { class: 'pager' }, previous, next),
  );
  await reload();
  return [events.stop];
}
