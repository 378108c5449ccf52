import type { Response } from 'express';
import type { EmuContext } from '../../context.js';
import { badRequest } from '../errors.js';
import {
  CLOCK_CHANGED,
  COMMAND_CHANGED,
  CONNECTION_CHANGED,
  DEVICE_CHANGED,
  EMULATOR_STOPPING,
  ENDPOINT_CHANGED,
  FAULTS_CHANGED,
  MAIL_CAPTURED,
  REQUEST_RECORDED,
  STATE_REPLACED,
  type ClockChange,
} from '../events.js';
import { entryMatches, journalOf, type JournalEntry, type JournalFilter } from '../journal.js';
import { queryList } from '../params.js';
import { journalFilter } from './journal.js';
import type { Route } from '../../contract.js';

/** The event types of the stream, each from one in-process event. */
const SOURCES = {
  request: REQUEST_RECORDED,
  kp1: REQUEST_RECORDED,
  command: COMMAND_CHANGED,
  endpoint: ENDPOINT_CHANGED,
  connection: CONNECTION_CHANGED,
  clock: CLOCK_CHANGED,
  faults: FAULTS_CHANGED,
  state: STATE_REPLACED,
  mail: MAIL_CAPTURED,
  device: DEVICE_CHANGED,
} as const;
type EventType = keyof typeof SOURCES;
const TYPES = Object.keys(SOURCES) as EventType[];

/** A reader that does not keep up loses events (counted in a `dropped` event) rather than growing our memory. */
const MAX_BUFFERED = 1024 * 1024;
const HEARTBEAT_MS = 15_000;

function shape(type: EventType, payload: unknown): unknown {
  if (type === 'clock') {
    const { now, mode } = payload as ClockChange;
    return { now: now.toISOString(), mode };
  }
  if (type === 'mail') {
    const { id, tenantId, to, subject, text, links, sentAt } = payload as Record<string, unknown>;
    return { id, tenantId, to, subject, text, links, sentAt };
  }
  return payload ?? {};
}

function stream(
  ctx: EmuContext,
  res: Response,
  types: EventType[],
  after: number | undefined,
  filter: JournalFilter,
): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write(`retry: 2000\n: platform-emu events (${types.join(', ')})\n\n`);
  let dropped = 0;
  const send = (type: string, data: unknown) => {
    if (res.writableLength > MAX_BUFFERED) {
      dropped++;
      return;
    }
    if (dropped > 0) {
      res.write(`event: dropped\ndata: {"count":${dropped}}\n\n`);
      dropped = 0;
    }
    res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const wanted = new Set(types);
  const listeners: Array<[string, (payload: unknown) => void]> = [];
  const onEntry = (entry: JournalEntry) => {
    const type = entry.type === 'kp1' ? 'kp1' : 'request';
    if (wanted.has(type) && entryMatches(entry, filter)) send(type, entry);
  };
  if (wanted.has('request') || wanted.has('kp1'))
    listeners.push([REQUEST_RECORDED, onEntry as (payload: unknown) => void]);
  for (const type of types) {
    if (type !== 'request' && type !== 'kp1')
      listeners.push([SOURCES[type], (payload) => send(type, shape(type, payload))]);
  }
  const end = () => res.end();
  listeners.push([EMULATOR_STOPPING, end]);
  for (const [event, listener] of listeners) ctx.events.on(event, listener);
  // Entries recorded before the stream opened, when asked: subscribed first, replayed in the same turn, so none is
  // missed.
  if (after !== undefined)
    for (const entry of journalOf(ctx).list({ ...filter, after, limit: journalOf(ctx).size })) onEntry(entry);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  res.on('close', () => {
    clearInterval(heartbeat);
    for (const [event, listener] of listeners) ctx.events.off(event, listener);
  });
}

/**
 * `GET /_emu/events`: server-sent events of requests, KP1 messages, commands, endpoints, connections, clock, faults,
 * state, mail, devices.
 */
export const eventRoutes: Route[] = [
  {
    method: 'GET',
    path: '/events',
    scope: null,
    summary: 'Server-sent events of the emulator',
    handler: (req, res) => {
      const ctx = req.ctx;
      const asked = queryList(req, 'types');
      const unknown = asked?.find((t) => !TYPES.includes(t as EventType));
      if (unknown !== undefined)
        throw badRequest(`Unknown event type "${unknown}"; the types are ${TYPES.join(', ')}.`);
      const { after, limit: _limit, ...filter } = journalFilter(req, journalOf(ctx).size);
      stream(ctx, res, asked && asked.length > 0 ? (asked as EventType[]) : TYPES, after, filter);
    },
  },
];
