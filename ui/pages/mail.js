import { api } from '../lib/api.js';
import { fill, h, safeHref, time, title } from '../lib/dom.js';
import { heldEvents } from '../lib/events.js';
import { coalesce } from '../lib/live.js';

const card = (m) =>
  h(
    'article',
    { class: 'mail', 'aria-label': `Mail ${m.id}: ${m.subject}` },
    h('h2', {}, m.subject),
    h('p', { class: 'muted' }, `To ${m.to} · tenant ${m.tenantId} · ${time(m.sentAt)}`),
    h('pre', {}, m.text),
    m.links.length > 0
      ? h(
          'ul',
          {},
          m.links.map((link) =>
            h('li', {}, safeHref(link) ? h('a', { href: safeHref(link) }, link) : h('code', {}, link)),
          ),
        )
      : null,
  );

/** The e-mails the platform would have sent, newest first, arriving live; their links open here. */
export async function render(main) {
  // Listening before the read: a mail sent while it is answered is added after it, once.
  const events = heldEvents(['mail', 'state']);
  const list = h('div', { 'data-testid': 'mail-list' });
  const none = () => h('p', { class: 'muted', 'data-testid': 'no-mail' }, 'No mail captured yet.');
  let shown = new Set();
  const load = async () => {
    const mails = await api('GET', '/_emu/mail');
    shown = new Set(mails.map((m) => m.id));
    fill(list, mails.length === 0 ? none() : mails.reverse().map(card));
  };
  await events.reading(load());
  fill(
    main,
    title('Captured mail'),
    h(
      'button',
      {
        class: 'secondary',
        type: 'button',
        onclick: async () => (await api('DELETE', '/_emu/mail'), (shown = new Set()), fill(list, none())),
      },
      'Forget all mail',
    ),
    list,
  );
  const handlers = {
    mail: (m) => {
      if (shown.has(m.id)) return;
      shown.add(m.id);
      list.querySelector('[data-testid="no-mail"]')?.remove();
      list.prepend(card(m));
    },
    // A reset or an import replaces the captured mail: read again, one read at a time, holding what arrives meanwhile.
    state: () => void readAgain(),
  };
  const readAgain = coalesce(() => events.readThenFollow(load, handlers));
  return [events.follow(handlers)];
}
