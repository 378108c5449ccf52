import { EventEmitter } from 'node:events';
import type { SigningKey } from './auth/keys.js';
import type { EmulatorConfig } from './config.js';
import type { ServiceDescriptor } from './server/contract.js';
import type { Store } from './store/index.js';

/** The endpoint a push goes to: the record the service already holds (no second lookup by token). */
export interface PushTarget {
  tenantId: string;
  endpointId: string;
  token: string;
  appVersion: { name: string };
}

/** What the gateway offers the services: pushing a message to a connected device. */
export interface DevicePush {
  push(endpoint: PushTarget, extension: string, resource: string, payload: unknown): void;
}

/** The realms of the tenants, as the server's token check needs them; the tenant manager provides it. */
export interface RealmDirectory {
  /** The tenant whose realm has this name. */
  tenantIdOfRealm(realm: string): string | undefined;
}

/** The emulator's time: every date it writes and every deadline it keeps is read from here. */
export interface Clock {
  now(): Date;
  /** `now()` as ISO 8601 UTC, the form every stored date takes. */
  nowIso(): string;
}

export const realClock: Clock = { now: () => new Date(), nowIso: () => new Date().toISOString() };

/**
 * Everything a domain function may use, one per running emulator. Services pass it along;
 * nothing lives in module globals, so several emulators can run in one process (tests do).
 */
export interface EmuContext {
  store: Store;
  config: EmulatorConfig;
  services: readonly ServiceDescriptor[];
  /** The signing key; an in-memory emulator makes it when first read. */
  readonly keys: SigningKey;
  realms: RealmDirectory;
  clock: Clock;
  /** In-process notifications between services and the gateway (a command result wakes its REST wait). */
  events: EventEmitter;
  devices: DevicePush;
  /** Runtime state of a service that is not part of the stored state (waiters, timers). */
  runtime: Map<string, unknown>;
  log: (message: string) => void;
  /** The tenant requests act in when auth is off. */
  defaultTenantId(): string;
}

export function runtimeOf<T>(ctx: EmuContext, key: string, create: () => T): T {
  let value = ctx.runtime.get(key) as T | undefined;
  if (value === undefined) ctx.runtime.set(key, (value = create()));
  return value;
}

export function createEventBus(): EventEmitter {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return events;
}
