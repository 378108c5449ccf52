import { api } from '../lib/api.js';
import { field, fill, h, json, parseJson, time } from '../lib/dom.js';
import { on } from '../lib/events.js';
import { coalesce } from '../lib/live.js';
import { allowedButton } from './allowed.js';

const cex = (id) => `/cex/api/v1/endpoints/${encodeURIComponent(id)}`;
const failed = (command) => command.statusCode !== undefined && command.statusCode >= 400;

/** The device's answer as it reported it: status code and reason phrase, a failure styled as one. */
const outcome = (command) =>
  command.statusCode === undefined
    ? ''
    : ` · status ${command.statusCode}${command.reasonPhrase ? ` ${command.reasonPhrase}` : ''}`;

/** The command types named in the history's field, each once. */
const typesIn = (text) => [
  ...new Set(
    text
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  ),
];

/**
 * Commands of one endpoint: invoke with a payload and a wait, the result live, the history newest first.
 * `GET /cex/api/v1/endpoints/commands` lists only the command types it is asked for (spec 2, later revision), so the
 * history lists the types this page knows: the endpoint's own, read from its application's commands when the page
 * opens (that operation needs no types, but its own scope), then every type invoked here or arriving in an event,
 * and any the user names in the field.
 */
export function commandsSection(endpoint, appName, cleanups, can) {
  const id = endpoint.endpointId;
  // A viewer's fields are read-only, as its Invoke is disabled.
  const readonly = !can('endpoint:update');
  const type = h('input', { type: 'text', required: true, pattern: '[a-zA-Z0-9]+', value: 'reboot', readonly });
  const payload = h('textarea', { rows: 3, readonly }, '{}');
  const wait = h('input', { type: 'number', min: 0, max: 60, value: 0, readonly });
  const result = h('div', { role: 'status', 'data-testid': 'command-result' });
  const history = h('tbody', {});
  const listed = h('input', { type: 'text', placeholder: 'reboot, display' });
  const learn = (commandType) => {
    const types = typesIn(listed.value);
    if (!types.includes(commandType)) listed.value = [...types, commandType].join(', ');
  };
  let watching;
  /** Reads of the watched command asked so far: an answer older than the last one asked is not shown. */
  let watchReads = 0;

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

  /** The watched command as the emulator holds it now, unless a later read was asked meanwhile. */
  async function showWatched(commandType) {
    const asked = ++watchReads;
    const command = await api('GET', `${cex(id)}/commands/${encodeURIComponent(commandType)}/${watching}`);
    if (asked === watchReads) showCommand(command);
  }

  const commandsOf = async (types) =>
    (
      await api('GET', '/cex/api/v1/endpoints/commands', {
        query: { endpointId: id, commandTypes: types.join(',') },
      })
    )[0]?.commands ?? [];

  /**
   * The endpoint's commands of every type, from its application's listing; undefined when the user may not read it
   * (or it fails): then the history lists the types named in the field.
   */
  async function applicationHistory() {
    if (!appName || !can('application:endpoint-command:read')) return undefined;
    const path = `/cex/api/v1/endpoints/commands/${encodeURIComponent(appName)}`;
    const page = await api('GET', path, { query: { limit: 0 } }).catch(() => undefined);
    return page && (page.content.find((d) => d.endpointId === id)?.commands ?? []);
  }

  const message = (className, text) => fill(history, h('tr', {}, h('td', { colspan: 6, class: className }, text)));

  // Never rejects: a failed read shows its message in the table.
  async function loadHistory(opening) {
    let commands;
    try {
      commands = opening ? await applicationHistory() : undefined;
      commands?.forEach((c) => learn(c.commandType));
      if (!commands) {
        const types = typesIn(listed.value);
        if (types.length === 0) return message('muted', 'Name the command types to list in the field above.');
        commands = await commandsOf(types);
      }
    } catch (err) {
      return message('error', err.message);
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

  let opened = false;
  /**
   * The history read again (forms, events), one read at a time: asked for during a read, it is read once more after
   * it, so an older answer never replaces a newer one. The first read lists the application's commands.
   */
  const reloadHistory = coalesce(() => {
    const opening = !opened;
    opened = true;
    return loadHistory(opening);
  });

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
      learn(type.value);
      if (answer.status === 202) {
        watching = answer.body.commandId;
        showCommand(answer.body);
        // The status may have changed between the answer and now: read it once, then follow the events.
        await showWatched(type.value);
      } else {
        // A 200 carries the device's payload only: its status code and reason phrase are in the command's record.
        const executed = (await commandsOf([type.value])).at(-1);
        showCommand(executed ?? { commandType: type.value, status: 'EXECUTED', responsePayload: answer.body ?? null });
      }
    } catch (err) {
      fill(result, h('p', { class: 'error' }, err.message));
    }
    void reloadHistory();
  };

  cleanups.push(
    on('command', (c) => {
      if (c.endpointId !== id) return;
      learn(c.commandType);
      if (c.commandId === watching && c.status !== 'DELETED') showWatched(c.commandType).catch(() => undefined);
      void reloadHistory();
    }),
  );
  void reloadHistory();
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
      'form',
      {
        class: 'filters',
        onsubmit: (event) => {
          event.preventDefault();
          void reloadHistory();
        },
      },
      field('Types in the history (comma-separated)', listed),
      h('button', { type: 'submit', class: 'secondary' }, 'List'),
    ),
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
