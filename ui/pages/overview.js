import { api, isOwnCall } from '../lib/api.js';
import { fill, h, perFrame, table, time, title } from '../lib/dom.js';
import { heldEvents, journalTail } from '../lib/events.js';

const definition = (pairs) =>
  h(
    'dl',
    {},
    pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );

/** The services the emulator serves and the records each holds, from the health answer: no list of its own. */
export const serviceRows = (health) =>
  health.services.map((s) => ({ title: s.title, name: s.name, url: s.url, records: s.records }));

/** The page lists journal entries (`request`, `kp1` events): the dashboard follows them while it is shown. */
export const followsJournal = true;

/**
 * What runs and what is in it: the emulator's addresses, its services and their records, tenants, applications, devices
 * online now, the last requests.
 */
export async function render(main, _params, { can, tenant }) {
  const admin = can('emulator:admin');
  const tail = journalTail();
  // Listening before the reads: a device that connects, a clock set or a fault added while they are answered is shown.
  const events = heldEvents(['connection', 'clock', 'faults']);
  const [health, apps, tenants, connections, requests] = await events.reading(
    tail.reading(
      Promise.all([
        api('GET', '/_emu/health'),
        api('GET', '/app-manager/api/v1/applications').catch((err) => err),
        api('GET', '/tenant-manager/api/v1/tenants').catch((err) => err),
        admin ? api('GET', '/_emu/connections') : [],
        admin ? tail.read(() => api('GET', '/_emu/requests', { query: { limit: 100 } })) : [],
      ]),
    ),
  );
  const online = new Set(connections.filter((c) => c.online).map((c) => c.endpointId));
  const onlineCount = h('span', { class: 'big', 'data-testid': 'online-count' }, online.size);
  const clockText = h('span', { 'data-testid': 'overview-clock' });
  // The clock ticks between its events (a frozen clock does not): shown as the emulator's time plus the time since.
  let clock = { ...health.clock, at: Date.now() };
  const showClock = () => {
    const now = clock.mode === 'frozen' ? Date.parse(clock.now) : Date.parse(clock.now) + Date.now() - clock.at;
    clockText.textContent = `${time(new Date(now).toISOString())} (${clock.mode})`;
  };
  showClock();
  const ticking = setInterval(showClock, 1000);
  const faultsText = h('span', {}, health.faults.length);
  const requestRows = h('tbody', {});
  const ownToo = h('input', { type: 'checkbox' });
  // The dashboard's own calls would crowd out the platform's traffic: left out unless asked for.
  const shownRequest = (entry) =>
    ownToo.checked || (entry.service !== '_emu' && !(entry.type === 'http' && isOwnCall(entry.method, entry.path)));
  const requestRow = (entry) =>
    h(
      'tr',
      {},
      h('td', {}, entry.seq),
      h('td', {}, entry.method ?? entry.direction),
      h('td', {}, entry.path ?? entry.topic),
      h('td', {}, entry.status),
      h('td', {}, `${entry.latencyMs?.toFixed?.(1) ?? ''} ms`),
    );
  // Requests are added once per animation frame: 200 devices sending a sample a second cost a frame's update, not
  // a table row each.
  const addRequests = (entries) => {
    const fresh = entries.filter(shownRequest).slice(-10);
    requestRows.prepend(...fresh.reverse().map(requestRow));
    while (requestRows.children.length > 10) requestRows.lastChild.remove();
  };
  addRequests(requests);
  const addRequest = perFrame(addRequests);
  tail.follow(addRequest);

  const versionRows = [];
  if (Array.isArray(apps)) {
    for (const app of apps) {
      for (const version of app.versions) {
        const count = h('td', {}, '…');
        versionRows.push(
          h(
            'tr',
            {},
            h('td', { class: 'token' }, app.tenantId ?? tenant ?? health.defaultTenant),
            h('td', {}, app.displayName ?? app.name),
            h('td', { class: 'token' }, version.name),
            count,
          ),
        );
        api('GET', '/epr/api/v1/endpoints', { query: { applicationVersionName: version.name, limit: 1 } }).then(
          (page) =>
            fill(
              count,
              h('a', { href: `#/endpoints?version=${encodeURIComponent(version.name)}` }, page.totalElements),
            ),
          (err) => fill(count, h('span', { class: 'muted' }, err.message)),
        );
      }
    }
  }
  fill(
    main,
    title('Overview'),
    h(
      'div',
      { class: 'cards' },
      // Known only with the control plane: without it the card is not shown rather than show 0.
      admin ? h('div', { class: 'card' }, h('div', { class: 'muted' }, 'Devices online now'), onlineCount) : null,
      h(
        'div',
        { class: 'card' },
        definition([
          ['REST', health.url],
          ['MQTT', health.mqtt.url],
          ['Auth', health.auth],
        ]),
      ),
      h(
        'div',
        { class: 'card' },
        definition([
          ['Data directory', health.dataDir ?? 'in memory'],
          ['Version', health.version],
          ['Default tenant', health.defaultTenant],
        ]),
      ),
      h(
        'div',
        { class: 'card' },
        definition([
          ['Clock', clockText],
          ['Faults in force', faultsText],
        ]),
        h('a', { href: '#/clock' }, 'Clock and faults'),
      ),
    ),
    h('h2', {}, 'Tenants'),
    Array.isArray(tenants?.results)
      ? h(
          'ul',
          {},
          tenants.results.map((t) => h('li', {}, `${t.id} (realm ${t.realm_name})`)),
        )
      : h('p', { class: 'muted' }, `Not shown: ${tenants.message}`),
    h('h2', {}, 'Applications and versions'),
    Array.isArray(apps)
      ? table('Endpoints per application version', ['Tenant', 'Application', 'Version', 'Endpoints'], versionRows)
      : h('p', { class: 'muted' }, `Not shown: ${apps.message}`),
    h('h2', {}, 'Services'),
    table(
      'Services and the records each holds',
      ['Service', 'Address', 'Records'],
      serviceRows(health).map((s) =>
        h(
          'tr',
          { 'data-testid': `service-${s.name}` },
          h('td', {}, s.title),
          h('td', {}, h('code', {}, `/${s.name}/api/v1`)),
          h('td', {}, s.records),
        ),
      ),
    ),
    h('h2', {}, 'Last requests'),
    admin
      ? h('label', { class: 'check' }, ownToo, "Include the dashboard's own requests")
      : h('p', { class: 'muted' }, "The journal and live connection counts need the emulator's admin token."),
    h(
      'table',
      {},
      h('caption', { class: 'muted caption' }, 'Newest first; live'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Seq', 'Method', 'Path or topic', 'Status', 'Time'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      requestRows,
    ),
  );
  return [
    events.follow({
      connection: (c) => {
        if (c.online) online.add(c.endpointId);
        else online.delete(c.endpointId);
        onlineCount.textContent = online.size;
      },
      clock: (c) => ((clock = { ...c, at: Date.now() }), showClock()),
      faults: (f) => (faultsText.textContent = f.faults.length),
    }),
    () => clearInterval(ticking),
    tail.stop,
  ];
}
