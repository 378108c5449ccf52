import { api } from '../lib/api.js';
import { field, fill, h, json, parseJson, time, title } from '../lib/dom.js';
import { journalOpen, on } from '../lib/events.js';
import { coalesce } from '../lib/live.js';
import { allowedButton } from './allowed.js';
import { commandsSection } from './endpoint-commands.js';
import { blobsSection, softwareSection, telemetrySection } from './endpoint-data.js';

const path = (id) => `/epr/api/v1/endpoints/${encodeURIComponent(id)}`;
const ecr = (id) => `/ecr/api/v1/endpoints/${encodeURIComponent(id)}`;

/** The endpoint as the register holds it now, with its ETag (what a metadata save sends as If-Match). */
async function readEndpoint(endpointId) {
  const answer = await api('GET', path(endpointId), { query: { include: 'metadata' }, raw: true });
  return { endpoint: answer.body, etag: answer.headers.get('etag') ?? undefined };
}

/**
 * The page follows its endpoint's KP1 messages and uploads (`kp1`, `request` events): the dashboard follows the
 * journal's entries while it is shown.
 */
export const followsJournal = true;

/** One endpoint: metadata, configuration, commands, telemetry, blobs and files, software. */
export async function render(main, [endpointId], { can, tenant }) {
  // Its sections listen before they read: with the stream open first, no upload or message falls between the two.
  await journalOpen();
  const { endpoint, etag } = await readEndpoint(endpointId);
  const appName = (await api('GET', '/app-manager/api/v1/applications').catch(() => [])).find((a) =>
    a.versions.some((v) => v.name === endpoint.appVersion.name),
  )?.name;
  const cleanups = [];
  const sections = [
    metadataSection(endpoint, etag, { can, tenant }),
    await configSection(endpoint, can, cleanups),
    commandsSection(endpoint, appName, cleanups, can),
  ];
  if (appName)
    sections.push(
      await telemetrySection(endpoint, appName, cleanups, can),
      await blobsSection(endpoint, appName, cleanups),
      await softwareSection(endpoint, appName, cleanups, can),
    );
  fill(
    main,
    title(`Endpoint ${endpointId}`),
    h('p', { class: 'muted' }, `Version ${endpoint.appVersion.name} · registered ${time(endpoint.createdDate)}`),
    sections,
  );
  return cleanups;
}

/**
 * Metadata, saved with If-Match of what is shown: when the record changed meanwhile, the save is refused (412) and
 * the user is offered the current record rather than overwriting it.
 */
function metadataSection(endpoint, etag, { can, tenant }) {
  const allowed = can('emulator:admin');
  const text = h('textarea', { rows: 8, readonly: !allowed }, json(endpoint.metadata ?? {}));
  const message = h('div', { role: 'status', 'data-testid': 'metadata-message' });
  const updated = h('span', {}, time(endpoint.metadataUpdatedDate));
  let shownEtag = etag;
  const say = (className, ...children) => fill(message, h('p', { class: className }, ...children));
  const showCurrent = async () => {
    try {
      const fresh = await readEndpoint(endpoint.endpointId);
      text.value = json(fresh.endpoint.metadata ?? {});
      updated.textContent = time(fresh.endpoint.metadataUpdatedDate);
      shownEtag = fresh.etag;
      say('ok', 'The current metadata is shown; edit it and save again.');
      text.focus();
    } catch (err) {
      say('error', err.message);
    }
  };
  const save = async (event) => {
    event.preventDefault();
    const metadata = parseJson(text.value);
    if (metadata instanceof Error || metadata === undefined)
      return say('error', metadata?.message ?? 'Metadata is a JSON object.');
    try {
      const written = await api('PUT', `/_emu/endpoints/${encodeURIComponent(endpoint.endpointId)}/metadata`, {
        body: metadata,
        query: { tenantId: tenant },
        headers: shownEtag ? { 'if-match': shownEtag } : {},
        raw: true,
      });
      shownEtag = written.headers.get('etag') ?? undefined;
      updated.textContent = time(written.body.metadataUpdatedDate);
      say('ok', 'Metadata saved.');
    } catch (err) {
      if (err.status !== 412) return say('error', err.message);
      say(
        'error',
        'Not saved: the metadata changed since it was shown here (412). ',
        h('button', { type: 'button', class: 'secondary', onclick: showCurrent }, 'Show the current metadata'),
      );
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

async function configSection(endpoint, can, cleanups) {
  const id = endpoint.endpointId;
  const version = endpoint.appVersion.name;
  const current = async () => (await api('GET', ecr(id))).find((c) => c.appVersionName === version);
  const first = await current().catch(() => undefined);
  const allowed = can('endpoint:update');
  const text = h('textarea', { rows: 8, readonly: !allowed }, first ? prettyConfig(first) : '{}');
  const state = h('div', { 'data-testid': 'config-state' });
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
              ? `The device applied ` +
                  `${config.appliedConfigId === config.configId ? 'this configuration' : config.appliedConfigId} ` +
                  `at ${time(config.appliedDate)}.`
              : 'The device has not reported it applied.',
          )
        : h('p', { class: 'muted' }, 'No configuration of its own for this version.'),
    );
  showState(first);
  // The device reports what it applied over KP1 (cmx): the line follows its messages.
  const refresh = coalesce(async () => showState(await current()));
  cleanups.push(
    on('kp1', (entry) => {
      if (entry.endpointId === id && entry.topic?.includes('/cmx')) void refresh();
    }),
  );
  const save = async (event) => {
    event.preventDefault();
    const payload = parseJson(text.value);
    if (payload instanceof Error || payload === undefined)
      return ((message.className = 'error'), (message.textContent = payload?.message ?? 'Write a JSON configuration.'));
    try {
      await api('PUT', `${ecr(id)}/app-versions/${encodeURIComponent(version)}`, { body: payload });
      showState(await current());
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

function prettyConfig(config) {
  if (config.configContentType !== 'application/json') return config.config;
  try {
    return json(JSON.parse(config.config));
  } catch {
    return config.config;
  }
}
