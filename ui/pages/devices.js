import { api } from '../lib/api.js';
import { field, fill, h, parseJson, time, title } from '../lib/dom.js';
import { heldEvents } from '../lib/events.js';
import { coalesce } from '../lib/live.js';

/** Simulated devices in the emulator's process: started with an answer rule per command type, stopped again. */
export async function render(main, _params, { tenant } = {}) {
  // Listening before the first read: a device started or stopped while it is answered is shown after it.
  const events = heldEvents(['device', 'state']);
  const rows = h('tbody', {});
  const message = h('p', { role: 'status', tabindex: -1 });
  const endpointId = h('input', { type: 'text', required: true, placeholder: 'e.g. meter-001' });
  const commandType = h('input', { type: 'text', value: 'reboot', pattern: '[a-zA-Z0-9]*' });
  const statusCode = h('input', { type: 'number', min: 100, max: 599, value: 200 });
  const payload = h('textarea', { rows: 2 }, '{"done": true, "asked": "{{payload}}"}');
  const delay = h('input', { type: 'number', min: 0, value: 0 });
  const telemetry = h('input', { type: 'text', placeholder: 'e.g. temperature=20..25' });

  async function load() {
    const devices = await api('GET', '/_emu/devices');
    fill(
      rows,
      devices.length === 0
        ? h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No simulated device runs.'))
        : devices.map((d) =>
            h(
              'tr',
              {},
              h('td', {}, h('a', { href: `#/endpoints/${encodeURIComponent(d.endpointId)}` }, d.endpointId)),
              h('td', {}, d.appVersion),
              h('td', {}, d.answered),
              h('td', {}, Object.keys(d.rules?.commands ?? {}).join(', ') || 'echo'),
              h('td', {}, time(d.startedAt)),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    class: 'secondary',
                    type: 'button',
                    'aria-label': `Stop ${d.endpointId}`,
                    onclick: () => stop(d.endpointId),
                  },
                  'Stop',
                ),
              ),
            ),
          ),
    );
  }
  async function stop(id) {
    // The row goes away with its button: the focus goes to the message that says what happened.
    message.focus();
    try {
      await api('DELETE', `/_emu/devices/${encodeURIComponent(id)}`);
      message.className = 'ok';
      message.textContent = `Stopped ${id}.`;
    } catch (err) {
      message.className = 'error';
      message.textContent = err.message;
    }
  }
  const startDevice = async (event) => {
    event.preventDefault();
    // The signed-in user's tenant (with auth on), so that its endpoints are found; else the default tenant.
    const body = { endpointId: endpointId.value.trim(), ...(tenant ? { tenantId: tenant } : {}) };
    if (commandType.value.trim()) {
      const answer = parseJson(payload.value);
      if (answer instanceof Error) return ((message.className = 'error'), (message.textContent = answer.message));
      body.rules = {
        commands: {
          [commandType.value.trim()]: {
            statusCode: Number(statusCode.value),
            ...(answer === undefined ? {} : { payload: answer }),
            delayMs: Number(delay.value),
          },
        },
      };
    }
    if (telemetry.value.trim()) body.telemetry = { sample: telemetry.value.trim(), intervalMs: 1000 };
    message.className = '';
    message.textContent = 'Starting…';
    try {
      await api('POST', '/_emu/devices', { body });
      message.className = 'ok';
      message.textContent = `Started ${body.endpointId}.`;
    } catch (err) {
      message.className = 'error';
      message.textContent = err.message;
    }
  };
  fill(
    main,
    title('Simulated devices'),
    h(
      'p',
      { class: 'hint' },
      "Devices run in the emulator's process and answer commands by their rule; other command types are " +
        'echoed. Templates like {{payload}} work as in device simulate.',
    ),
    h(
      'form',
      { onsubmit: startDevice },
      h(
        'div',
        { class: 'filters' },
        field('Endpoint id', endpointId),
        field('Command type', commandType),
        field('Answer status', statusCode),
        field('Delay (ms)', delay),
        field('Telemetry (optional)', telemetry),
      ),
      field('Answer payload (JSON)', payload),
      h('button', {}, 'Start device'),
    ),
    message,
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Endpoint', 'Version', 'Answered', 'Rules for', 'Started', ''].map((t) =>
            h('th', { scope: 'col' }, t || h('span', { class: 'muted' }, 'Action')),
          ),
        ),
      ),
      rows,
    ),
  );
  await events.reading(load());
  const reload = coalesce(load);
  return [events.follow({ device: reload, state: reload })];
}
