import { h } from '../lib/dom.js';
import { needs } from '../lib/live.js';

/** A submit button, disabled with the reason beside it when the signed-in user lacks the scope. */
export function allowedButton(text, can, scope) {
  if (can(scope)) return h('button', {}, text);
  const id = `why-${text.replace(/\W+/g, '-').toLowerCase()}`;
  return h(
    'span',
    {},
    h('button', { disabled: true, 'aria-describedby': id }, text),
    ' ',
    h('span', { class: 'muted', id }, `(${needs(scope)})`),
  );
}

/** What a section shows instead of its data when the user may not read it. */
export const notAllowed = (scope) =>
  h('p', { class: 'muted', 'data-testid': 'needs-scope' }, `Not shown: ${needs(scope)}.`);
