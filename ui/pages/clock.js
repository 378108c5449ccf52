import { api } from '../lib/api.js';
import { field, fill, h, time, title } from '../lib/dom.js';
import { heldEvents } from '../lib/events.js';

const report = (el, promise, done) =>
  promise.then(
    (value) => {
      el.className = 'ok';
      el.textContent = done(value);
    },
    (err) => {
      el.className = 'error';
      el.textContent = err.message;
    },
  );

/** The virtual clock (set, advance, back to real time) and the faults in force (add, clear). */
export async function render(main) {
  // Listening before the reads: a change made while they are answered is applied after them.
  const events = heldEvents(['clock', 'faults', 'state']);
  const [clock, faults] = await events.reading(Promise.all([api('GET', '/_emu/clock'), api('GET', '/_emu/faults')]));
  const now = h('span', { 'data-testid': 'clock-now' });
  const mode = h('span', { 'data-testid': 'clock-mode' });
  const showClock = (c) => {
    now.textContent = `${time(c.now)} (${c.now})`;
    mode.textContent = c.mode;
  };
  showClock(clock);
  const clockMessage = h('p', { role: 'status' });
  const setTo = h('input', { type: 'datetime-local', step: 1 });
  const advance = h('input', { type: 'text', value: '1h', size: 8 });
  const putClock = (body) =>
    report(clockMessage, api('PUT', '/_emu/clock', { body }), (c) => (showClock(c), `Clock: ${c.now} (${c.mode}).`));

  const faultRows = h('tbody', {});
  const showFaults = (list) =>
    fill(
      faultRows,
      list.length === 0
        ? h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No faults.'))
        : list.map((f) =>
            h(
              'tr',
              {},
              h('td', {}, f.id),
              h('td', {}, h('code', {}, JSON.stringify({ ...f, id: undefined }))),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    class: 'secondary',
                    type: 'button',
                    'aria-label': `Remove ${f.id}`,
                    onclick: async () => {
                      // The row goes away with its button: the focus goes to the message that says so.
                      faultMessage.focus();
                      await report(faultMessage, api('DELETE', `/_emu/faults/${f.id}`), () => `Removed ${f.id}.`);
                    },
                  },
                  'Remove',
                ),
              ),
            ),
          ),
    );
  showFaults(faults);
  const faultMessage = h('p', { role: 'status', tabindex: -1 });
  const kind = h('select', {}, h('option', { value: 'http' }, 'HTTP'), h('option', { value: 'device' }, 'Device'));
  const target = h('input', { type: 'text', placeholder: 'e.g. /epr', required: true });
  const method = h(
    'select',
    {},
    ['', 'GET', 'POST', 'PUT', 'DELETE'].map((m) => h('option', { value: m }, m || 'any')),
  );
  const status = h('input', { type: 'number', min: 400, max: 599, value: 503 });
  const latency = h('input', { type: 'number', min: 0, value: 0 });
  const deviceMode = h(
    'select',
    {},
    ['offline', 'slow', 'disconnect'].map((m) => h('option', { value: m }, m)),
  );
  // The form shows the fields of the chosen kind only.
  const targetLabel = h('span', {}, 'Path');
  const targetField = field(targetLabel, target);
  const httpFields = h('span', { class: 'group' }, field('Method', method), field('Status', status));
  const deviceFields = h('span', { class: 'group' }, field('Device mode', deviceMode));
  const showKind = () => {
    const http = kind.value === 'http';
    targetLabel.textContent = http ? 'Path' : 'Endpoint id';
    target.placeholder = http ? 'e.g. /epr' : 'e.g. meter-001';
    httpFields.hidden = !http;
    deviceFields.hidden = http;
  };
  kind.addEventListener('change', showKind);
  showKind();
  const addFault = (event) => {
    event.preventDefault();
    const body =
      kind.value === 'http'
        ? {
            kind: 'http',
            path: target.value.trim(),
            ...(method.value ? { method: method.value } : {}),
            ...(status.value ? { status: Number(status.value) } : {}),
            ...(Number(latency.value) ? { latencyMs: Number(latency.value) } : {}),
          }
        : {
            kind: 'device',
            endpointId: target.value.trim(),
            mode: deviceMode.value,
            ...(Number(latency.value) ? { latencyMs: Number(latency.value) } : {}),
          };
    report(faultMessage, api('POST', '/_emu/faults', { body }), (f) => `Added ${f.id ?? 'the fault'}.`);
  };

  fill(
    main,
    title('Clock and faults'),
    h('h2', {}, 'Virtual clock'),
    h('p', {}, 'Now: ', now, ' · mode ', mode),
    h(
      'form',
      {
        class: 'inline',
        onsubmit: (e) => {
          e.preventDefault();
          const at = new Date(setTo.value);
          if (!setTo.value || Number.isNaN(at.getTime())) {
            clockMessage.className = 'error';
            clockMessage.textContent = 'Choose a date and time to set the clock to.';
            return;
          }
          putClock({ now: at.toISOString() });
        },
      },
      field('Set to (frozen)', setTo),
      h('button', {}, 'Set'),
    ),
    h(
      'form',
      { class: 'inline', onsubmit: (e) => (e.preventDefault(), putClock({ advance: advance.value.trim() })) },
      field('Advance by (1h, PT90S, 2d)', advance),
      h('button', {}, 'Advance'),
    ),
    h('button', { class: 'secondary', type: 'button', onclick: () => putClock({ real: true }) }, 'Back to real time'),
    clockMessage,
    h('h2', {}, 'Faults'),
    h(
      'form',
      { class: 'filters', onsubmit: addFault },
      field('Kind', kind),
      targetField,
      httpFields,
      field('Latency (ms)', latency),
      deviceFields,
      h('button', {}, 'Add fault'),
    ),
    faultMessage,
    h(
      'button',
      {
        class: 'secondary',
        type: 'button',
        onclick: () => report(faultMessage, api('DELETE', '/_emu/faults'), () => 'All faults cleared.'),
      },
      'Clear all faults',
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
          ['Id', 'Fault', 'Action'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      faultRows,
    ),
  );
  // A state replaced (a reset, an import) may have moved the clock: it is read again, and the answer shown unless a
  // clock event, as new or newer, came while it was read.
  let clockEvents = 0;
  const readAgain = async () => {
    const seen = clockEvents;
    const clock = await api('GET', '/_emu/clock');
    if (seen === clockEvents) showClock(clock);
  };
  return [
    events.follow({
      clock: (clock) => (clockEvents++, showClock(clock)),
      faults: (f) => showFaults(f.faults),
      state: () => readAgain().catch(() => undefined),
    }),
  ];
}
