import type { NextFunction, Request, Response } from 'express';
import { runtimeOf, type EmuContext } from '../context.js';
import type { JsonSchema } from '../contract.js';
import { badRequest } from './errors.js';
import { FAULTS_CHANGED } from './events.js';
import { schemaProblem } from '../schema/json-schema.js';
import { otherSpelling } from './service-list.js';

export interface HttpFault {
  kind: 'http';
  id: string;
  method?: string;
  /** A path prefix (`/epr/api/v1/endpoints`), or a glob where `*` is one path level and `**` any number. */
  path: string;
  status?: number;
  message?: string;
  latencyMs?: number;
  drop?: boolean;
  /** Chance that a matching request is hit; default 1. */
  probability?: number;
  /** Requests still to hit; the fault goes away after the last one. Absent: until removed. */
  count?: number;
  /** Requests hit so far. */
  hits: number;
}

export type DeviceFaultMode = 'offline' | 'slow' | 'disconnect';

export interface DeviceFault {
  kind: 'device';
  id: string;
  endpointId: string;
  mode: DeviceFaultMode;
  latencyMs?: number;
}

export type Fault = HttpFault | DeviceFault;
export type FaultInput = Omit<HttpFault, 'id' | 'hits'> | Omit<DeviceFault, 'id'>;

const MAX_FAULTS = 1000;
export const DEFAULT_SLOW_MS = 1000;

const httpSchema: JsonSchema = {
  type: 'object',
  required: ['kind', 'path'],
  additionalProperties: false,
  properties: {
    kind: { const: 'http' },
    method: { type: 'string', pattern: '^[A-Za-z]+$' },
    path: { type: 'string', pattern: '^/', maxLength: 2048 },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    message: { type: 'string', maxLength: 2000 },
    latencyMs: { type: 'integer', minimum: 0, maximum: 600000 },
    drop: { type: 'boolean' },
    probability: { type: 'number', minimum: 0, maximum: 1 },
    count: { type: 'integer', minimum: 1 },
  },
};

const deviceSchema: JsonSchema = {
  type: 'object',
  required: ['kind', 'endpointId', 'mode'],
  additionalProperties: false,
  properties: {
    kind: { const: 'device' },
    endpointId: { type: 'string', minLength: 1, maxLength: 256 },
    mode: { enum: ['offline', 'slow', 'disconnect'] },
    latencyMs: { type: 'integer', minimum: 0, maximum: 600000 },
  },
};

interface CompiledHttpFault {
  fault: HttpFault;
  method?: string;
  matches: (path: string) => boolean;
}

function pathMatcher(path: string): (path: string) => boolean {
  if (!path.includes('*')) return (p) => p.startsWith(path);
  const source = path
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const pattern = new RegExp(`^${source}$`);
  return (p) => pattern.test(p);
}

/** The faults of one emulator: what the REST middleware and the device gateway consult. Runtime only, never stored. */
export class Faults {
  http: CompiledHttpFault[] = [];
  readonly device = new Map<string, DeviceFault>();
  private seq = 0;

  constructor(private readonly ctx: EmuContext) {}

  /** Validates and adds a fault; a device fault replaces the endpoint's previous one. */
  add(input: unknown): Fault {
    const kind = (input as { kind?: unknown } | null)?.kind;
    if (kind !== 'http' && kind !== 'device') throw badRequest('A fault needs "kind": "http" or "device".');
    const problem = schemaProblem(kind === 'http' ? httpSchema : deviceSchema, input, 'the fault');
    if (problem) throw badRequest(`Invalid fault: ${problem}.`);
    if (this.http.length + this.device.size >= MAX_FAULTS)
      throw badRequest(`There are already ${MAX_FAULTS} faults; clear some first.`);
    const id = `fault-${++this.seq}`;
    let fault: Fault;
    if (kind === 'http') {
      const given = input as Omit<HttpFault, 'id' | 'hits'>;
      if (given.drop && given.status !== undefined)
        throw badRequest('Invalid fault: a fault either answers a status or drops the connection, not both.');
      if (!given.drop && given.status === undefined && given.latencyMs === undefined) {
        throw badRequest('Invalid fault: give at least one of status, latencyMs or drop.');
      }
      fault = { ...given, ...(given.method ? { method: given.method.toUpperCase() } : {}), id, hits: 0 };
      this.http.push({ fault, method: fault.method, matches: pathMatcher(fault.path) });
    } else {
      const given = input as Omit<DeviceFault, 'id'>;
      fault = { ...given, id, ...(given.mode === 'slow' ? { latencyMs: given.latencyMs ?? DEFAULT_SLOW_MS } : {}) };
      // A disconnect is an act, not a state: the gateway closes the connection on this event, and nothing stays listed.
      if (fault.mode !== 'disconnect') this.device.set(fault.endpointId, fault);
    }
    this.changed(fault);
    return fault;
  }

  list(): Fault[] {
    return [...this.http.map((h) => ({ ...h.fault })), ...[...this.device.values()].map((d) => ({ ...d }))];
  }

  remove(id: string): boolean {
    const before = this.http.length + this.device.size;
    this.http = this.http.filter((h) => h.fault.id !== id);
    for (const [endpointId, fault] of this.device) if (fault.id === id) this.device.delete(endpointId);
    const removed = this.http.length + this.device.size < before;
    if (removed) this.changed();
    return removed;
  }

  clear(): void {
    if (this.http.length + this.device.size === 0) return;
    this.http = [];
    this.device.clear();
    this.changed();
  }

  /**
   * The HTTP fault that hits this request, if any (probability drawn, count spent). Never the control plane. A
   * service operation is matched in both its spellings: a fault on `/epr` hits `GET /api/v1/endpoints/meter-001` too.
   */
  hit(req: Request): HttpFault | undefined {
    const path = req.path;
    if (path.startsWith('/_emu/') || path === '/_emu') return undefined;
    let other: string | undefined | null = null;
    for (const entry of this.http) {
      if (entry.method !== undefined && entry.method !== req.method) continue;
      if (!entry.matches(path)) {
        if (other === null) other = otherSpelling(this.ctx.services, req.method, path);
        if (other === undefined || !entry.matches(other)) continue;
      }
      const { fault } = entry;
      if (fault.probability !== undefined && Math.random() >= fault.probability) continue;
      fault.hits++;
      if (fault.count !== undefined && --fault.count <= 0) this.http = this.http.filter((h) => h !== entry);
      return fault;
    }
    return undefined;
  }

  private changed(added?: Fault): void {
    this.ctx.events.emit(FAULTS_CHANGED, { faults: this.list(), added });
  }
}

export const faultsOf = (ctx: EmuContext) => runtimeOf(ctx, 'faults', () => new Faults(ctx));

/**
 * Acts out an HTTP fault: waits its latency, then answers its status, drops the connection, or lets the request
 * through.
 */
export function applyHttpFault(fault: HttpFault, req: Request, res: Response, next: NextFunction): void {
  const act = () => {
    if (res.destroyed) return;
    if (fault.drop) {
      req.socket.destroy();
    } else if (fault.status !== undefined) {
      res.status(fault.status).json({
        message:
          fault.message ??
          `Injected fault ${fault.id}: ${req.method} ${req.path} answers ${fault.status} (see GET /_emu/faults).`,
      });
    } else {
      next();
    }
  };
  if (!fault.latencyMs) return act();
  const timer = setTimeout(act, fault.latencyMs);
  res.once('close', () => clearTimeout(timer));
}
