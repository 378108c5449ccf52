import { api } from '../lib/api.js';
import { field, fill, h, json, parseJson, time } from '../lib/dom.js';
import { on } from '../lib/events.js';
import { allowedButton } from './allowed.js';

const cex = (id) => `/cex/api/v1/endpoints/${encodeURIComponent(id)}`;
const failed = (command) => command.statusCode !== undefined && command.statusCode >= 400;

/** The device's answer as it reported it: status code and reason phrase, a failure styled as one. */
const outcome = (command) =>
  command.statusCode === undefined
    ? ''
    : ` · status ${command.statusCode}${command.reasonPhrase ? ` ${command.reasonPhrase}` : ''}`;

/** Commands of one endpoint: invoke with a payload and a wait, the result live, the history newest first. */
export function commandsSection(endpoint, cleanups, can) {
  const id = endpoint.endpointId;
  // A viewer's fields are read-only, as its Invoke is disabled.
  const readonly = !can('endpoint:update');
  const type = h('input', { type: 'text', required: true, pattern: '[a-zA-Z0-9]+', value: 'reboot', readonly });
  const payload = h('textarea', { rows: 3, readonly }, '{}');
  const wait = h('input', { type: 'number', min: 0, max: 60, value: 0, readonly });
  const result = h('div', { role: 'status', 'data-testid': 'command-result' });
  const history = h('tbody', {});
  let watching;

  const showCommand = (command) =>
    fill(
      result,
      h(
        'p',
        { class: failed(command) ? 'failure' : '' },
        `Command ${command.commandId} (${command.commandType}): `,
        h('strong', { 'data-testid': 'command-status' }, command.status, failed(command) ? ' (failed)' : ''),
        h('span', { 'data-testid': 'command-outcome' }, outcome(command)),
      ),
      command.responsePayload !== undefined
        ? h('pre', { 'data-testid': 'command-response' }, json(command.responsePayload))
        : null,
    );

  const commandsOf = async () =>
    (await api('GET', '/cex/api/v1/endpoints/commands', { query: { endpointId: id } }))[0]?.commands ?? [];

  // Called without waiting (forms, events), so it never rejects: a failed read shows its message in the table.
  async function loadHistory() {
    let commands;
    try {
      commands = await commandsOf();
    } catch (err) {
      return fill(history, h('tr', {}, h('td', { colspan: 6, class: 'error' }, err.message)));
    }
    fill(
      history,
      commands
        .slice(-20)
        .reverse()
        .map((c) =>
          h(
            'tr',
            { class: failed(c) ? 'failure' : '' },
            h('td', { class: 'token' }, c.commandId),
            h('td', { class: 'token' }, c.commandType),
            h('td', {}, c.status),
            h(
              'td',
              {},
              c.statusCode === undefined ? '' : `${c.statusCode}${c.reasonPhrase ? ` ${c.reasonPhrase}` : ''}`,
            ),
            h('td', {}, time(c.createdAt)),
            h(
              'td',
              {},
              c.responsePayload === undefined ? '' : h('code', {}, JSON.stringify(c.responsePayload).slice(0, 80)),
            ),
          ),
        ),
    );
  }

  const invoke = async (event) => {
    event.preventDefault();
    const body = parseJson(payload.value);
    if (body instanceof Error) return fill(result, h('p', { class: 'error' }, body.message));
    fill(result, h('p', {}, 'Invoking…'));
    try {
      const answer = await api('POST', `${cex(id)}/commands/${encodeURIComponent(type.value)}`, {
        body,
        query: { waitTimeout: wait.value },
        raw: true,
      });
      if (answer.status === 202) {
        watching = answer.body.commandId;
        showCommand(answer.body);
        // The status may have changed between the answer and now: read it once, then follow the events.
        showCommand(await api('GET', `${cex(id)}/commands/${encodeURIComponent(type.value)}/${watching}`));
      } else {
        // A 200 carries the device's payload only: its status code and reason phrase are in the command's record.
        const executed = (await commandsOf()).filter((c) => c.commandType === type.value).at(-1);
        showCommand(executed ?? { commandType: type.value, status: 'EXECUTED', responsePayload: answer.body ?? null });
      }
    } catch (err) {
      fill(result, h('p', { class: 'error' }, err.message));
    }
    void loadHistory();
  };

  cleanups.push(
    on('command', async (c) => {
      if (c.endpointId !== id) return;
      if (c.commandId === watching && c.status !== 'DELETED')
        showCommand(await api('GET', `${cex(id)}/commands/${encodeURIComponent(c.commandType)}/${c.commandId}`));
      void loadHistory();
    }),
  );
  void loadHistory();
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'commands-h' },
    h('h2', { id: 'commands-h' }, 'Commands'),
    h(
      'form',
      { onsubmit: invoke },
      h('div', { class: 'filters' }, field('Command type', type), field('Wait (seconds)', wait)),
      // The payload comes before Invoke, in reading and tab order.
      field('Payload (JSON)', payload),
      allowedButton('Invoke', can, 'endpoint:update'),
    ),
    result,
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        {},
        h('caption', { class: 'muted caption' }, 'History (newest first, live)'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Id', 'Type', 'Status', 'Device answer', 'Created', 'Response'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        history,
      ),
    ),
  );
}
