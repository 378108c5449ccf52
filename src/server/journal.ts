import type { Request, Response } from 'express';
import { runtimeOf, type EmuContext } from '../context.js';
import type { ServiceDescriptor } from '../contract.js';
import { REDACTED } from './control/secrets.js';
import { REQUEST_RECORDED } from './events.js';
import { serviceOfPath } from './service-list.js';
import { percentDecoded } from './percent-decoding.js';

/** One entry as `GET /_emu/requests` and the event stream show it. */
export interface JournalEntry {
  seq: number;
  /** ISO 8601, by the emulator's (virtual) clock. */
  time: string;
  /** `http`: a REST request; `kp1`: a KP1 message from a device (`in`) or pushed to it (`out`). */
  type: 'http' | 'kp1';
  /**
   * The service's prefix (`epr`, also for its bare `/api/v1` paths), else the first path level (`_emu`, `auth`), or
   * `kp1`.
   */
  service: string;
  method?: string;
  /** REST: the path with its query, secrets redacted. */
  path?: string;
  topic?: string;
  transport?: 'mqtt' | 'http';
  direction?: 'in' | 'out';
  tenantId?: string;
  endpointId?: string;
  /** HTTP status or KP1 status code; 0 when the client went away (or a fault dropped it) before an answer. */
  status: number;
  latencyMs: number;
}

interface Raw {
  seq: number;
  at: number;
  type: 'http' | 'kp1';
  /** HTTP method, or the KP1 transport. */
  how: string;
  /** URL or topic. */
  target: string;
  tenantId?: string;
  endpointId?: string;
  status: number;
  latencyMs: number;
  out?: boolean;
  /** What `serviceOf` found, once asked. */
  service?: string;
}

export interface JournalFilter {
  type?: 'http' | 'kp1';
  service?: string;
  /** Prefix of the path (REST) or topic (KP1). */
  path?: string;
  /** `404`, or a class: `4xx`. */
  status?: string;
  endpointId?: string;
  /** Only entries after this sequence number. */
  after?: number;
  /** The last `limit` matches, oldest first. */
  limit?: number;
}

const MAX_TARGET = 2048;
/**
 * Query parameters whose values are secrets: an authorization `code`, passwords (`pass`, `passwd`, `pwd`, any name
 * with `passw`), and any name with `secret`, `token`, `verifier`, `credential` or `api_key` in it (`client_secret`,
 * `access_token`, `refresh_token`, `id_token_hint`, `code_verifier`, `x-auth-token`), besides `authorization`, `key`
 * and the LoRaWAN `lnsApiKeyId`. Names are compared percent-decoded, in any case.
 */
const SECRET_NAME =
  /^(?:code|pass|pwd|key|authorization|lnsApiKeyId)$|passw|secret|token|verifier|credential|api[-_]?key/i;

/** The query string with the values of secret parameters replaced. */
function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && SECRET_NAME.test(decodeSafely(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

const decodeSafely = (text: string): string => percentDecoded(text) ?? text;

const ENDPOINT_IN_PATH = /\/endpoints\/([^/?]+)/;

function endpointOf(raw: Raw): string | undefined {
  if (raw.endpointId !== undefined || raw.type !== 'http') return raw.endpointId;
  const id = ENDPOINT_IN_PATH.exec(raw.target)?.[1];
  return id === undefined || id === 'commands' ? undefined : decodeSafely(id);
}

function serviceOf(raw: Raw, services: readonly ServiceDescriptor[]): string {
  if (raw.type === 'kp1') return 'kp1';
  if (raw.service !== undefined) return raw.service;
  const end = raw.target.slice(1).search(/[/?]/);
  const first = end === -1 ? raw.target.slice(1) : raw.target.slice(1, end + 1);
  // A bare `/api/v1/...` request is the service's whose operation answered it; `api` when none has the path.
  return (raw.service = first === 'api' ? (serviceOfPath(services, raw.how, raw.target)?.prefix ?? 'api') : first);
}

function statusMatches(status: number, wanted: string): boolean {
  if (/^[1-5]xx$/i.test(wanted)) return Math.floor(status / 100) === Number(wanted[0]);
  return String(status) === wanted;
}

/**
 * The last `size` REST requests and KP1 messages, in a ring buffer: recording is a few field writes, memory is
 * bounded by the size whatever the load, and no header or body is ever kept (so no secret can be).
 */
export class Journal {
  private readonly ring: Array<Raw | undefined>;
  private next = 0;
  private seq = 0;

  constructor(
    private readonly ctx: EmuContext,
    readonly size: number,
  ) {
    this.ring = new Array(size);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Takes ownership of `raw` (a fresh object from the caller, `seq` and `at` still 0): numbered, dated and kept as is.
   */
  record(raw: Raw): void {
    if (raw.target.length > MAX_TARGET) raw.target = `${raw.target.slice(0, MAX_TARGET)}...`;
    raw.seq = ++this.seq;
    raw.at = this.ctx.clock.nowMs();
    this.ring[this.next] = raw;
    this.next = (this.next + 1) % this.size;
    if (this.ctx.events.listenerCount(REQUEST_RECORDED) > 0)
      this.ctx.events.emit(REQUEST_RECORDED, present(raw, this.ctx.services));
  }

  /** The last `limit` entries that match, oldest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const limit = Math.min(filter.limit ?? 100, this.size);
    const found: JournalEntry[] = [];
    for (let i = 1; i <= this.size && found.length < limit; i++) {
      const raw = this.ring[(this.next - i + this.size) % this.size];
      if (!raw || (filter.after !== undefined && raw.seq <= filter.after)) break;
      if (matches(raw, filter, this.ctx.services)) found.push(present(raw, this.ctx.services));
    }
    return found.reverse();
  }
}

function matches(raw: Raw, filter: JournalFilter, services: readonly ServiceDescriptor[]): boolean {
  if (filter.type !== undefined && raw.type !== filter.type) return false;
  if (filter.status !== undefined && !statusMatches(raw.status, filter.status)) return false;
  if (filter.path !== undefined && !raw.target.startsWith(filter.path)) return false;
  if (filter.service !== undefined && serviceOf(raw, services) !== filter.service) return false;
  if (filter.endpointId !== undefined && endpointOf(raw) !== filter.endpointId) return false;
  return true;
}

/** The same filter over an entry as presented (the event stream's entries). */
export function entryMatches(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.type !== undefined && entry.type !== filter.type) return false;
  if (filter.status !== undefined && !statusMatches(entry.status, filter.status)) return false;
  if (filter.path !== undefined && !(entry.path ?? entry.topic ?? '').startsWith(filter.path)) return false;
  if (filter.service !== undefined && entry.service !== filter.service) return false;
  if (filter.endpointId !== undefined && entry.endpointId !== filter.endpointId) return false;
  return true;
}

function present(raw: Raw, services: readonly ServiceDescriptor[]): JournalEntry {
  const common = {
    seq: raw.seq,
    time: new Date(raw.at).toISOString(),
    type: raw.type,
    service: serviceOf(raw, services),
  };
  const who = {
    ...(raw.tenantId !== undefined ? { tenantId: raw.tenantId } : {}),
    ...(endpointOf(raw) !== undefined ? { endpointId: endpointOf(raw) } : {}),
  };
  const outcome = { status: raw.status, latencyMs: Math.round(raw.latencyMs * 100) / 100 };
  if (raw.type === 'http') return { ...common, method: raw.how, path: redactQuery(raw.target), ...who, ...outcome };
  return {
    ...common,
    topic: raw.target,
    transport: raw.how as 'mqtt' | 'http',
    direction: raw.out ? 'out' : 'in',
    ...who,
    ...outcome,
  };
}

export const journalOf = (ctx: EmuContext) => runtimeOf(ctx, 'journal', () => new Journal(ctx, ctx.config.journalSize));

declare global {
  namespace Express {
    interface Request {
      /** `performance.now()` when the request arrived (the journal's latency). */
      arrivedAt: number;
      /** The KP1 HTTP binding journals the message itself, as a KP1 entry. */
      journaledAsKp1?: boolean;
    }
  }
}

/**
 * Journals every REST request when its response closes. One listener function per app (no closure per request),
 * no body or header copied.
 */
export function requestJournal(ctx: EmuContext): (req: Request, res: Response) => void {
  const journal = journalOf(ctx);
  function onClose(this: Response): void {
    const req = this.req;
    if (req.journaledAsKp1) return;
    journal.record({
      seq: 0,
      at: 0,
      type: 'http',
      how: req.method,
      target: req.originalUrl,
      tenantId: req.principal?.tenantId,
      status: this.writableFinished ? this.statusCode : 0,
      latencyMs: performance.now() - req.arrivedAt,
      out: false,
      service: undefined,
    });
  }
  return (req, res) => {
    req.arrivedAt = performance.now();
    res.on('close', onClose);
  };
}
