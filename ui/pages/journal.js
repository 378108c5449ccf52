import { api } from '../lib/api.js';
import { field, fill, h, json, time, title } from '../lib/dom.js';
import { on } from '../lib/events.js';

const LIMIT = 200;

/** The same rules as the server's journal filter, for the live entries. */
function matches(entry, f) {
  if (f.type && entry.type !== f.type) return false;
  if (f.service && entry.service !== f.service) return false;
  if (f.endpointId && entry.endpointId !== f.endpointId) return false;
  if (f.path && !(entry.path ?? entry.topic ?? '').startsWith(f.path)) return false;
  if (f.status)
    return /^\dxx$/.test(f.status) ? String(entry.status)[0] === f.status[0] : String(entry.status) === f.status;
  return true;
}

/** A live tail of REST requests and KP1 messages, filtered, each entry's detail on selection. */
export async function render(main) {
  const type = h(
    'select',
    {},
    h('option', { value: '' }, 'all'),
    h('option', { value: 'http' }, 'REST'),
    h('option', { value: 'kp1' }, 'KP1'),
  );
  const service = h('input', { type: 'text', size: 8 });
  const path = h('input', { type: 'text', size: 24 });
  const status = h('input', { type: 'text', size: 5, placeholder: '4xx' });
  const endpointId = h('input', { type: 'text', size: 12 });
  const rows = h('tbody', {});
  const detail = h(
    'pre',
    { 'aria-live': 'polite', 'data-testid': 'journal-detail' },
    'Select an entry to see it whole.',
  );
  let filter = {};

  const row = (entry) =>
    h(
      'tr',
      { class: 'journal-row' },
      h(
        'td',
        {},
        h(
          'button',
          {
            class: 'secondary',
            type: 'button',
            'aria-label': `Entry ${entry.seq}`,
            onclick: () => (detail.textContent = json(entry)),
          },
          entry.seq,
        ),
      ),
      h('td', {}, time(entry.time)),
      h('td', {}, entry.type === 'kp1' ? `KP1 ${entry.direction}` : entry.method),
      h('td', {}, entry.path ?? entry.topic),
      h('td', {}, entry.status),
      h('td', {}, entry.latencyMs?.toFixed(1)),
    );
  async function load(event) {
    event?.preventDefault();
    filter = {
      type: type.value,
      service: service.value.trim(),
      path: path.value.trim(),
      status: status.value.trim(),
      endpointId: endpointId.value.trim(),
    };
    try {
      const entries = await api('GET', '/_emu/requests', { query: { ...filter, limit: LIMIT } });
      fill(rows, entries.reverse().map(row));
    } catch (err) {
      fill(rows, h('tr', {}, h('td', { colspan: 6, class: 'error' }, err.message)));
    }
  }
  const add = (entry) => {
    if (!matches(entry, filter)) return;
    rows.prepend(row(entry));
    while (rows.children.length > LIMIT) rows.lastChild.remove();
  };
  fill(
    main,
    title('Request journal'),
    h(
      'form',
      { class: 'filters', onsubmit: load },
      field('Type', type),
      field('Service', service),
      field('Path or topic prefix', path),
      field('Status', status),
      field('Endpoint id', endpointId),
      h('button', {}, 'Filter'),
    ),
    h(
      'p',
      { class: 'hint' },
      'Newest first, live. Headers and bodies are never journaled; secret query values read <redacted>.',
    ),
    h('h2', {}, 'Entry'),
    detail,
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Seq', 'Time', 'Kind', 'Path or topic', 'Status', 'ms'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      rows,
    ),
  );
  await load();
  return [on('request', add), on('kp1', add)];
}
