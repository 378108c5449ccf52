import { adminToken } from './api.js';

/**
 * The emulator's server-sent events (`GET /_emu/events`); pages subscribe by event type. Two streams: one for the
 * events every page may follow (commands, endpoints, connections, clock, faults, state, mail, devices), open all the
 * time, and one for the journal's entries (`request`, `kp1`: every REST request and KP1 message, thousands a second
 * under a fleet), open only while the page shown lists them (`followJournal`). A page that shows no journal entry
 * then neither receives nor parses them, and the emulator does not send them.
 */
const listeners = new Map();
const JOURNAL_TYPES = ['request', 'kp1'];
const OTHER_TYPES = ['command', 'endpoint', 'connection', 'clock', 'faults', 'state', 'mail', 'device'];
let source;
let journal;
let journalWanted = false;
/** Settles once the stream of journal entries is open (or failed, or closed); at once while none is being opened. */
let journalOpened = Promise.resolve();
let settleJournalOpened = () => undefined;

function open(types) {
  const url = new URL('/_emu/events', location.origin);
  url.searchParams.set('types', types.join(','));
  if (adminToken.get()) url.searchParams.set('access_token', adminToken.get());
  const stream = new EventSource(url);
  for (const type of types) {
    stream.addEventListener(type, (message) => {
      const data = JSON.parse(message.data);
      for (const listener of listeners.get(type) ?? []) listener(data);
    });
  }
  return stream;
}

export function connectEvents(onStatus) {
  source?.close();
  source = open(OTHER_TYPES);
  source.onopen = () => onStatus('live');
  source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting…');
  journal?.close();
  journal = undefined;
  followJournal(journalWanted);
}

/**
 * Opens the stream of journal entries (before the page reads what it shows, so that it is following when it
 * subscribes), or closes it; once the events are connected.
 */
export function followJournal(wanted) {
  journalWanted = wanted;
  if (wanted && source && !journal) {
    settleJournalOpened();
    journal = open(JOURNAL_TYPES);
    journalOpened = new Promise((resolve) => (settleJournalOpened = resolve));
    journal.addEventListener('open', settleJournalOpened, { once: true });
    journal.addEventListener('error', settleJournalOpened, { once: true });
  } else if (!wanted && journal) {
    journal.close();
    journal = undefined;
    settleJournalOpened();
  }
}

/**
 * Settles once the stream of journal entries is open (or could not open): a page whose reads follow journal entries
 * waits for it before it reads, so that whatever is recorded after its reads reaches it.
 */
export const journalOpen = () => journalOpened;

/** Events held while a page reads: the newest this many, more than any page shows. */
const HELD_ENTRIES = 1000;

/**
 * Events of `types` for a page that reads what it shows before it shows events: listens at once and holds what
 * arrives. `follow(handlers)`, once the page shows what it read, hands each held event to its type's handler in the
 * order they came, then every new one, and returns the function that stops listening; `hold()` holds again (a page
 * that reads anew), and `readThenFollow(read, handlers)` holds while `read()` runs, then follows `handlers` (also when
 * the read fails). `reading(promise)` is the page's first read: when it fails, the listening stops. So no event falls
 * between a read and the listening. A handler may get an event the read already showed (its second argument, `held`,
 * is true for an event that came during the read): it applies state, reads again, or skips what is shown.
 */
export function heldEvents(types) {
  let handlers;
  let held = [];
  const stops = types.map((type) =>
    on(type, (data) => {
      if (handlers) handlers[type]?.(data, false);
      else if (held.push([type, data]) > 2 * HELD_ENTRIES) held = held.slice(-HELD_ENTRIES);
    }),
  );
  const stop = () => {
    for (const stopOne of stops) stopOne();
  };
  const follow = (to) => {
    handlers = to;
    const waiting = held;
    held = [];
    for (const [type, data] of waiting) to[type]?.(data, true);
    return stop;
  };
  const hold = () => (handlers = undefined);
  return {
    follow,
    hold,
    async readThenFollow(read, to) {
      hold();
      try {
        return await read();
      } finally {
        follow(to);
      }
    },
    async reading(read) {
      try {
        return await read;
      } catch (err) {
        stop();
        throw err;
      }
    },
    stop,
  };
}

/**
 * The journal's entries for a page that reads the last ones, shows them, then adds new ones as they come: held
 * events (above) of the journal's types. `read(fetchEntries)` holds again and waits for the stream of entries to be
 * open before it reads, so that whatever is recorded after the read reaches the page; `follow(add)` then hands `add`
 * the held entries newer than the read's (by `seq`), then every new one. So none is shown twice.
 */
export function journalTail() {
  const events = heldEvents(JOURNAL_TYPES);
  let last = 0;
  return {
    ...events,
    async read(fetchEntries) {
      events.hold();
      await journalOpen();
      const entries = await fetchEntries();
      for (const entry of entries) last = Math.max(last, entry.seq);
      return entries;
    },
    follow(add) {
      const newer = (entry) => entry.seq > last && add(entry);
      return events.follow(Object.fromEntries(JOURNAL_TYPES.map((type) => [type, newer])));
    },
  };
}

/** Listens to an event type; returns the function that stops listening (pages call it when left). */
export function on(type, listener) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(listener);
  return () => listeners.get(type).delete(listener);
}
