import { api } from '../lib/api.js';
import { field, fill, h, json, parseJson, time, title } from '../lib/dom.js';
import { on } from '../lib/events.js';
import { blobsSection, softwareSection, telemetrySection } from './endpoint-data.js';

const path = (id) => `/epr/api/v1/endpoints/${encodeURIComponent(id)}`;
const cex = (id) => `/cex/api/v1/endpoints/${encodeURIComponent(id)}`;

/** One endpoint: metadata, configuration, commands, telemetry, blobs and files, software. */
export async function render(main, [endpointId], { can }) {
  const endpoint = await api('GET', path(endpointId), { query: { include: 'metadata' } });
  const appName = (await api('GET', '/app-manager/api/v1/applications').catch(() => [])).find((a) =>
    a.versions.some((v) => v.name === endpoint.appVersion.name),
  )?.name;
  const cleanups = [];
  const sections = [
    metadataSection(endpoint, can),
    await configSection(endpoint, can),
    commandsSection(endpoint, cleanups, can),
  ];
  if (appName)
    sections.push(
      await telemetrySection(endpoint, appName, cleanups),
      await blobsSection(endpoint, appName),
      await softwareSection(endpoint, appName, cleanups),
    );
  fill(
    main,
    title(`Endpoint ${endpointId}`),
    h('p', { class: 'muted' }, `Version ${endpoint.appVersion.name} · registered ${time(endpoint.createdDate)}`),
    sections,
  );
  return cleanups;
}

function metadataSection(endpoint, can) {
  const text = h('textarea', { rows: 8 }, json(endpoint.metadata ?? {}));
  const message = h('p', { role: 'status' });
  const updated = h('span', {}, time(endpoint.metadataUpdatedDate));
  const save = async (event) => {
    event.preventDefault();
    const metadata = parseJson(text.value);
    if (metadata instanceof Error || metadata === undefined)
      return ((message.className = 'error'), (message.textContent = metadata?.message ?? 'Metadata is a JSON object.'));
    try {
      const written = await api('PUT', `/_emu/endpoints/${encodeURIComponent(endpoint.endpointId)}/metadata`, {
        body: metadata,
      });
      updated.textContent = time(written.metadataUpdatedDate);
      message.className = 'ok';
      message.textContent = 'Metadata saved.';
    } catch (err) {
      message.className = 'error';
      message.textContent = err.message;
    }
  };
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'metadata-h' },
    h('h2', { id: 'metadata-h' }, 'Metadata'),
    h('p', { class: 'muted' }, 'Updated ', updated),
    h(
      'form',
      { onsubmit: save },
      field('Metadata (JSON object, replaces all keys)', text),
      allowedButton('Save metadata', can, 'emulator:admin'),
    ),
    message,
  );
}

async function configSection(endpoint, can) {
  const version = endpoint.appVersion.name;
  const configs = await api('GET', `/ecr/api/v1/endpoints/${encodeURIComponent(endpoint.endpointId)}`).catch(() => []);
  const current = configs.find((c) => c.appVersionName === version);
  const text = h('textarea', { rows: 8 }, current ? prettyConfig(current) : '{}');
  const state = h('div', {});
  const message = h('p', { role: 'status' });
  const showState = (config) =>
    fill(
      state,
      config
        ? h(
            'p',
            { class: 'muted' },
            `configId ${config.configId}, updated ${time(config.updatedDate)}. `,
            config.appliedConfigId
              ? `The device applied ${config.appliedConfigId === config.configId ? 'this configuration' : config.appliedConfigId} at ${time(config.appliedDate)}.`
              : 'The device has not reported it applied.',
          )
        : h('p', { class: 'muted' }, 'No configuration of its own for this version.'),
    );
  showState(current);
  const save = async (event) => {
    event.preventDefault();
    const payload = parseJson(text.value);
    if (payload instanceof Error || payload === undefined)
      return ((message.className = 'error'), (message.textContent = payload?.message ?? 'Write a JSON configuration.'));
    try {
      await api(
        'PUT',
        `/ecr/api/v1/endpoints/${encodeURIComponent(endpoint.endpointId)}/app-versions/${encodeURIComponent(version)}`,
        { body: payload },
      );
      const list = await api('GET', `/ecr/api/v1/endpoints/${encodeURIComponent(endpoint.endpointId)}`);
      showState(list.find((c) => c.appVersionName === version));
      message.className = 'ok';
      message.textContent = 'Configuration saved.';
    } catch (err) {
      message.className = 'error';
      message.setAttribute('data-testid', 'config-error');
      message.textContent = `Not saved (${err.status}): ${err.message}`;
    }
  };
  return h(
    'section',
    { class: 'section', 'aria-labelledby': 'config-h' },
    h('h2', { id: 'config-h' }, 'Configuration'),
    state,
    h(
      'form',
      { onsubmit: save },
      field(`Configuration for ${version} (JSON, checked against the version's schema)`, text),
      allowedButton('Save configuration', can, 'endpoint:update'),
    ),
    message,
  );
}

/** A submit button, disabled with the reason beside it when the signed-in user lacks the scope. */
function allowedButton(text, can, scope) {
  if (can(scope)) return h('button', {}, text);
  const reason = scope === 'emulator:admin' ? "needs the emulator's admin token" : `needs the scope ${scope}`;
  const id = `why-${text.replace(/\W+/g, '-').toLowerCase()}`;
  return h(
    'span',
    {},
    h('button', { disabled: true, 'aria-describedby': id }, text),
    ' ',
    h('span', { class: 'muted', id }, `(${reason})`),
  );
}

function prettyConfig(config) {
  if (config.configContentType !== 'application/json') return config.config;
  try {
    return json(JSON.parse(config.config));
  } catch {
    return config.config;
  }
}

function commandsSection(endpoint, cleanups, can) {
  const id = endpoint.endpointId;
  const type = h('input', { type: 'text', required: true, pattern: '[a-zA-Z0-9]+', value: 'reboot' });
  const payload = h('textarea', { rows: 3 }, '{}');
  const wait = h('input', { type: 'number', min: 0, max: 60, value: 0 });
  const result = h('div', { role: 'status', 'data-testid': 'command-result' });
  const history = h('tbody', {});
  let watching;

  const showCommand = (command) =>
    fill(
      result,
      h(
        'p',
        {},
        `Command ${command.commandId} (${command.commandType}): `,
        h('strong', { 'data-testid': 'command-status' }, command.status),
        command.statusCode ? ` · status ${command.statusCode}` : '',
      ),
      command.responsePayload !== undefined
        ? h('pre', { 'data-testid': 'command-response' }, json(command.responsePayload))
        : null,
    );

  // Called without waiting (forms, events), so it never rejects: a failed read shows its message in the table.
  async function loadHistory() {
    let entry;
    try {
      [entry] = await api('GET', '/cex/api/v1/endpoints/commands', { query: { endpointId: id } });
    } catch (err) {
      return fill(history, h('tr', {}, h('td', { colspan: 6, class: 'error' }, err.message)));
    }
    fill(
      history,
      (entry?.commands ?? [])
        .slice(-20)
        .reverse()
        .map((c) =>
          h(
            'tr',
            {},
            h('td', {}, c.commandId),
            h('td', {}, c.commandType),
            h('td', {}, c.status),
            h('td', {}, c.statusCode ?? ''),
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
      } else
        fill(
          result,
          h('p', {}, 'Executed: ', h('strong', { 'data-testid': 'command-status' }, 'EXECUTED')),
          h('pre', { 'data-testid': 'command-response' }, json(answer.body ?? null)),
        );
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
      { class: 'inline', onsubmit: invoke },
      field('Command type', type),
      field('Wait (seconds)', wait),
      allowedButton('Invoke', can, 'endpoint:update'),
    ),
    field('Payload (JSON)', payload),
    result,
    h(
      'table',
      {},
      h('caption', { class: 'muted', style: 'text-align:left' }, 'History (newest first, live)'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Id', 'Type', 'Status', 'Code', 'Created', 'Response'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      history,
    ),
  );
}
