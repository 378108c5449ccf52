import { api, session } from './lib/api.js';
import { fill, field, h } from './lib/dom.js';
import { connectEvents } from './lib/events.js';
import * as overview from './pages/overview.js';
import * as endpoints from './pages/endpoints.js';
import * as endpoint from './pages/endpoint.js';
import * as devices from './pages/devices.js';
import * as journal from './pages/journal.js';
import * as clock from './pages/clock.js';
import * as mail from './pages/mail.js';

const routes = [
  [/^#?\/?$/, overview, '#/'],
  [/^#\/endpoints$/, endpoints, '#/endpoints'],
  [/^#\/endpoints\/([^/]+)$/, endpoint, '#/endpoints'],
  [/^#\/devices$/, devices, '#/devices'],
  [/^#\/journal$/, journal, '#/journal'],
  [/^#\/clock$/, clock, '#/clock'],
  [/^#\/mail$/, mail, '#/mail'],
];

const main = document.getElementById('main');
const status = document.getElementById('status');
let cleanups = [];
let health;

async function show() {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
  const hash = location.hash.split('?')[0];
  const route = routes.find(([pattern]) => pattern.test(hash));
  for (const link of document.querySelectorAll('nav a')) {
    if (route?.[2] === link.getAttribute('href')) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!route) return fill(main, h('h1', {}, 'Not found'), h('p', {}, 'No page at ', hash, '.'));
  const [pattern, page] = route;
  const params = pattern.exec(hash).slice(1).map(decodeURIComponent);
  try {
    cleanups = (await page.render(main, params, { health })) ?? [];
  } catch (err) {
    fill(main, h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, err.message));
  }
  if (document.activeElement === document.body || !main.contains(document.activeElement)) main.querySelector('h1')?.focus();
}

function signIn() {
  const token = h('input', { type: 'password', autocomplete: 'off', required: true });
  const message = h('p', { role: 'alert', class: 'error' });
  fill(
    main,
    h('h1', { tabindex: -1 }, 'Sign in'),
    h('p', {}, 'This emulator runs with --auth on: the dashboard needs the emulator\'s admin token (in emulator.lock, the start banner, or --admin-token).'),
    h(
      'form',
      {
        class: 'inline',
        onsubmit: async (event) => {
          event.preventDefault();
          session.token = token.value.trim();
          try {
            await api('GET', '/_emu/clock');
            start();
          } catch (err) {
            session.token = undefined;
            message.textContent = err.message;
          }
        },
      },
      field('Admin token', token),
      h('button', {}, 'Sign in'),
    ),
    message,
  );
  main.querySelector('h1').focus();
}

async function start() {
  health = await api('GET', '/_emu/health');
  if (health.auth === 'on' && !session.token) return signIn();
  connectEvents((state) => (status.textContent = `events: ${state}`));
  window.addEventListener('hashchange', show);
  await show();
}

start().catch((err) => fill(main, h('h1', {}, 'The emulator cannot be reached'), h('p', { class: 'error', role: 'alert' }, err.message)));
