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
  if (wanted && source && !journal) journal = open(JOURNAL_TYPES);
  else if (!wanted && journal) {
    journal.close();
    journal = undefined;
  }
}

/** Listens to an event type; returns the function that stops listening (pages call it when left). */
export function on(type, listener) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(listener);
  return () => listeners.get(type).delete(listener);
}
