/** `h('button', { onclick }, 'Save')`: an element with attributes (on* are listeners) and children. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'value') el.value = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's content. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let ids = 0;
/** A labelled control: the label names it for screen readers and tests. */
export function field(text, control) {
  control.id ||= `f${++ids}`;
  return h('label', { for: control.id }, text, control);
}

export const json = (value) => JSON.stringify(value, null, 2);

export const time = (iso) => (iso ? new Date(iso).toLocaleString() : '');

/** Reads JSON typed by the user; undefined for empty text, an Error for invalid JSON. */
export function parseJson(text) {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    return new Error(`Not valid JSON: ${err.message}`);
  }
}

/** The page's heading: focusable, so that moving between pages puts the keyboard focus at the top. */
export const title = (text) => h('h1', { tabindex: -1 }, text);

/** A table from a header row and rows of cells. */
export const table = (caption, headers, rows) =>
  h(
    'table',
    {},
    h('caption', { class: 'muted caption' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h('tbody', {}, rows),
  );

/**
 * `const add = perFrame((items) => ...)`: items passed to `add(item)` are handed over together once per animation
 * frame, so that a burst of events costs one DOM update, not one per event. A hidden tab draws no frames, so a
 * timer flushes as well (browsers run it at least once a minute in a background tab): what waits stays bounded.
 */
export function perFrame(flush) {
  let pending = [];
  let scheduled = false;
  const run = () => {
    if (!scheduled) return;
    const items = pending;
    pending = [];
    scheduled = false;
    flush(items);
  };
  return (item) => {
    pending.push(item);
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(run);
    setTimeout(run, 1000);
  };
}

/** Only http(s) links are rendered as links: a `javascript:` or `data:` URL from stored data stays text. */
export function safeHref(url) {
  try {
    const parsed = new URL(url, location.origin);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
