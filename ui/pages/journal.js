import { api } from '../lib/api.js';
import { field, fill, h, json, perFrame, time, title } from '../lib/dom.js';
import { journalTail } from '../lib/events.js';

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

/** The page lists journal entries (`request`, `kp1` events): the dashboard follows them while it is shown. */
export const followsJournal = true;

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
  const tail = journalTail();
  let filter = {};
  let selected;

  /** The entry whole, in a row right under the one selected (at most one open at a time). */
  const select = (tr, entry) => {
    rows.querySelector('.detail-row')?.remove();
    selected?.classList.remove('selected');
    selected?.querySelector('button')?.setAttribute('aria-expanded', 'false');
    if (selected === tr) return void (selected = undefined);
    selected = tr;
    tr.classList.add('selected');
    tr.querySelector('button').setAttribute('aria-expanded', 'true');
    tr.after(
      h(
        'tr',
        { class: 'detail-row' },
        h('td', { colspan: 6 }, h('pre', { 'data-testid': 'journal-detail', tabindex: 0 }, json(entry))),
      ),
    );
  };

  const row = (entry) => {
    const tr = h(
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
            'aria-expanded': 'false',
            onclick: () => select(tr, entry),
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
    return tr;
  };
  /** Reads asked so far: the answer to a read older than the last one asked (another filter since) is not shown. */
  let reads = 0;
  async function load(event) {
    event?.preventDefault();
    const asked = ++reads;
    filter = {
      type: type.value,
      service: service.value.trim(),
      path: path.value.trim(),
      status: status.value.trim(),
      endpointId: endpointId.value.trim(),
    };
    try {
      const entries = await tail.read(() => api('GET', '/_emu/requests', { query: { ...filter, limit: LIMIT } }));
      if (asked !== reads) return;
      selected = undefined;
      fill(rows, entries.reverse().map(row));
    } catch (err) {
      if (asked !== reads) return;
      fill(rows, h('tr', {}, h('td', { colspan: 6, class: 'error' }, err.message)));
    }
    tail.follow(add);
  }
  // Live entries are added once per animation frame, however many arrive in it.
  const add = perFrame((entries) => {
    const fresh = entries.filter((entry) => matches(entry, filter)).slice(-LIMIT);
    rows.prepend(...fresh.reverse().map(row));
    while (rows.children.length > LIMIT + (selected ? 1 : 0)) rows.lastChild.remove();
  });
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
      'Newest first, live. Select an entry to see it whole, under its row. Headers and bodies are never ' +
        'journaled; secret query values read <redacted>.',
    ),
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
  return [tail.stop];
}
