import { adminToken, api } from './lib/api.js';
import { beginSignIn, finishSignIn, permissions, signOut } from './lib/auth.js';
import { fill, field, h } from './lib/dom.js';
import { connectEvents, followJournal } from './lib/events.js';
import * as overview from './pages/overview.js';
import * as endpoints from './pages/endpoints.js';
import * as endpoint from './pages/endpoint.js';
import * as devices from './pages/devices.js';
import * as journal from './pages/journal.js';
import * as clock from './pages/clock.js';
import * as mail from './pages/mail.js';

/** [hash pattern, page, nav link, needs the control plane's admin token (with auth on)] */
const routes = [
  [/^#?\/?$/, overview, '#/'],
  [/^#\/endpoints$/, endpoints, '#/endpoints'],
  [/^#\/endpoints\/([^/]+)$/, endpoint, '#/endpoints'],
  [/^#\/devices$/, devices, '#/devices', true],
  [/^#\/journal$/, journal, '#/journal', true],
  [/^#\/clock$/, clock, '#/clock', true],
  [/^#\/mail$/, mail, '#/mail', true],
];

const main = document.getElementById('main');
const status = document.getElementById('status');
let cleanups = [];
let health;
let allowed;
/** Counts the pages shown: a render that ends after the user has moved on to another page is stale. */
let shown = 0;

/**
 * Shows the page of the location's hash. A page renders into an element of its own, which replaces the previous page
 * once the render puts something in it (until then the previous page stays). A render that ends after the user has
 * moved on fills an element that is never shown, and its cleanups run at once: it neither covers the page the user
 * went to nor keeps listening.
 */
async function show() {
  const view = ++shown;
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
  const hash = location.hash.split('?')[0];
  const route = routes.find(([pattern]) => pattern.test(hash));
  for (const link of document.querySelectorAll('nav a')) {
    if (route?.[2] === link.getAttribute('href')) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  followJournal(Boolean(route?.[1].followsJournal));
  if (!route) return fill(main, h('h1', {}, 'Not found'), h('p', {}, 'No page at ', hash, '.'));
  const [pattern, page, , needsAdmin] = route;
  const params = pattern.exec(hash).slice(1).map(decodeURIComponent);
  if (needsAdmin && !allowed.can('emulator:admin')) return adminOnly();
  const current = () => view === shown;
  const area = h('div', {});
  const reveal = () => current() && !area.isConnected && area.hasChildNodes() && fill(main, area);
  const filled = new MutationObserver(reveal);
  filled.observe(area, { childList: true });
  try {
    const pageCleanups = (await page.render(area, params, { health, can: allowed.can, tenant: allowed.tenant })) ?? [];
    if (current()) cleanups = pageCleanups;
    else for (const cleanup of pageCleanups) cleanup();
  } catch (err) {
    fill(area, h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, err.message));
  }
  filled.disconnect();
  reveal();
  if (!current()) return;
  if (document.activeElement === document.body || !main.contains(document.activeElement))
    main.querySelector('h1')?.focus();
}

/** The admin token opens the control plane (journal, clock, faults, mail, devices, live updates). */
function adminForm(onDone) {
  const token = h('input', { type: 'password', autocomplete: 'off', required: true });
  const message = h('p', { role: 'alert', class: 'error' });
  return h(
    'form',
    {
      class: 'inline',
      onsubmit: async (event) => {
        event.preventDefault();
        adminToken.set(token.value.trim());
        try {
          await api('GET', '/_emu/clock');
          onDone();
        } catch (err) {
          adminToken.set(undefined);
          message.textContent = err.message;
        }
      },
    },
    field('Admin token', token),
    h('button', {}, 'Use admin token'),
    message,
  );
}

function adminOnly() {
  fill(
    main,
    h('h1', { tabindex: -1 }, 'Admin token needed'),
    h(
      'p',
      {},
      "This page is the emulator's control plane: with --auth on it needs the emulator's admin token (in " +
        'emulator.lock, the start banner, or --admin-token).',
    ),
    adminForm(() => (showUser(), startEvents(), show())),
  );
  main.querySelector('h1').focus();
}

function signIn() {
  const realm = h('input', { type: 'text', required: true, value: health.defaultTenant ?? '' });
  fill(
    main,
    h('h1', { tabindex: -1 }, 'Sign in'),
    h(
      'p',
      {},
      'This emulator runs with --auth on. Sign in as a user of a realm (a fixture user or an identity and ' +
        "access manager user): the dashboard then acts with that user's scopes.",
    ),
    h(
      'form',
      { class: 'inline', onsubmit: (event) => (event.preventDefault(), beginSignIn(realm.value.trim())) },
      field('Realm', realm),
      h('button', {}, "Sign in with the realm's login page"),
    ),
    h('h2', {}, 'Control plane'),
    h(
      'p',
      {},
      'Optionally, the admin token too: it opens the journal, clock, faults, mail, simulated devices and live updates.',
    ),
    adminForm(() => start()),
  );
  main.querySelector('h1').focus();
}

function showUser() {
  const who = allowed.user ? `signed in as ${allowed.user}` : adminToken.get() ? 'admin token' : '';
  if (!allowed.authOn) return;
  document.getElementById('user')?.remove();
  status.before(
    h(
      'span',
      { id: 'user', class: 'status' },
      who,
      ' ',
      h('button', { class: 'secondary', type: 'button', onclick: () => (signOut(), location.reload()) }, 'Sign out'),
    ),
  );
}

function startEvents() {
  if (allowed.can('emulator:admin')) connectEvents((state) => (status.textContent = `events: ${state}`));
  else status.textContent = 'live updates need the admin token';
}

async function start() {
  status.textContent = 'connecting…';
  health = await api('GET', '/_emu/health');
  await finishSignIn();
  allowed = permissions(health);
  if (allowed.authOn && !allowed.user && !adminToken.get()) {
    status.textContent = 'not signed in';
    return signIn();
  }
  showUser();
  startEvents();
  window.onhashchange = show;
  await show();
}

// "Skip to content" moves the focus to the page shown: followed as a link, its `#main` would be taken for a page.
document.querySelector('a.skip').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

start().catch((err) => {
  status.textContent = 'not connected';
  fill(main, h('h1', {}, 'The emulator cannot be reached'), h('p', { class: 'error', role: 'alert' }, err.message));
});
