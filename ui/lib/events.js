import { adminToken } from './api.js';

/** One server-sent event stream (`GET /_emu/events`) for the whole page; pages subscribe by event type. */
const listeners = new Map();
let source;
const TYPES = ['request', 'kp1', 'command', 'endpoint', 'connection', 'clock', 'faults', 'state', 'mail', 'device'];

export function connectEvents(onStatus) {
  source?.close();
  const url = new URL('/_emu/events', location.origin);
  if (adminToken.get()) url.searchParams.set('access_token', adminToken.get());
  source = new EventSource(url);
  source.onopen = () => onStatus('live');
  source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting…');
  for (const type of TYPES) {
    source.addEventListener(type, (message) => {
      const data = JSON.parse(message.data);
      for (const listener of listeners.get(type) ?? []) listener(data);
    });
  }
}

/** Listens to an event type; returns the function that stops listening (pages call it when left). */
export function on(type, listener) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(listener);
  return () => listeners.get(type).delete(listener);
}
