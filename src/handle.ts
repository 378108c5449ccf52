import { parseDuration, type ClockMode } from './clock.js';
import type { EmuContext } from './context.js';
import { moveClock, virtualClock } from './server/control/clock.js';
import { exportedState, type GeneratedSecret } from './server/control/secrets.js';
import {
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
  deleteSnapshot,
  type SnapshotInfo,
} from './server/control/snapshots.js';
import { faultsOf, type Fault, type FaultInput } from './server/faults.js';
import { REQUEST_RECORDED } from './server/events.js';
import { journalOf, type JournalEntry, type JournalFilter } from './server/journal.js';
import type { TestTokenRequest } from './oidc/test-tokens.js';
import type { StateDocument } from './store/index.js';

export type TokenOptions = Omit<TestTokenRequest, 'baseUrl'>;
export type { GeneratedSecret };
export type { ClockMode, Fault, FaultInput, JournalEntry, JournalFilter, SnapshotInfo };

/** The emulator's virtual clock, as `/_emu/clock` offers it. */
export interface EmulatorClock {
  /** The emulator's time now. */
  now(): Date;
  readonly mode: ClockMode;
  /** Jumps to a time: frozen there (default), or running on from there with `{ frozen: false }`. */
  set(at: Date | string, options?: { frozen?: boolean }): Promise<void>;
  /** Moves forward: `'PT1H'`, `'90s'`, `'721h'`, or milliseconds. Resolves once what became due has run. */
  advance(duration: string | number): Promise<void>;
  /** Stops the clock where it stands. */
  freeze(): Promise<void>;
  /** Back to the machine's time. */
  real(): Promise<void>;
}

/** Injected failures, as `/_emu/faults` offers them. */
export interface EmulatorFaults {
  /** Adds an HTTP fault or a device fault; throws (an `HttpError` with status 400) when it is not valid. */
  add(fault: FaultInput): Fault;
  list(): Fault[];
  /** false when there was no fault with that id. */
  remove(id: string): boolean;
  clear(): void;
}

/** What `startEmulator` hands a user: addresses, tokens, state control, the clock and faults. Internals stay inside. */
export interface RunningEmulator {
  /** `http://host:port` of the REST port. */
  url: string;
  port: number;
  host: string;
  dataDir: string | undefined;
  /** The device gateway's MQTT port and `mqtt://host:port`. */
  mqttPort: number;
  mqttUrl: string;
  /** MQTT over TLS: its port and `mqtts://host:port` (docs/devices.md, "TLS and certificates"). */
  mqttsPort: number;
  mqttsUrl: string;
  /** With `httpsPort`: `https://host:port`, the REST port's routes over TLS. */
  httpsUrl?: string;
  /** The local certificate authority's root certificate (PEM): the `ca` a TLS client trusts. */
  readonly caCertificate: string;
  /** A signed access token of a fixture tenant (default: the default tenant, its first user's scopes). */
  token(options?: TokenOptions): string;
  /** The token the control plane (`/_emu`) needs with auth on (scope `emulator:admin`). */
  readonly adminToken: string;
  /**
   * Back to the fixtures the emulator started with (or empty: `{ empty: true }`, or `--fixtures none`); real clock, no
   * faults.
   */
  reset(options?: { empty?: boolean }): Promise<void>;
  /** Saves the whole state under a name (in the data directory; in memory with `inMemory`). */
  snapshot(name: string): Promise<SnapshotInfo>;
  /** Replaces the whole state with a saved snapshot, atomically. */
  restore(name: string): Promise<void>;
  /** The saved snapshots, by name. */
  snapshots(): Promise<SnapshotInfo[]>;
  deleteSnapshot(name: string): Promise<void>;
  clock: EmulatorClock;
  faults: EmulatorFaults;
  /**
   * The whole state, as `GET /_emu/state` answers it (secrets `<redacted>` unless `includeSecrets`); after `stop`, all
   * it accepted.
   */
  exportState(options?: { includeSecrets?: boolean }): StateDocument;
  /** The request journal: the last `limit` (default 100) REST requests and KP1 messages that match, oldest first. */
  requests(filter?: JournalFilter): JournalEntry[];
  /**
   * Calls `listener` with every REST request and KP1 message as the journal records it; the returned function stops it.
   */
  onRequest(listener: (entry: JournalEntry) => void): () => void;
  /**
   * Secrets the start had to make: its import (or fixture file) was an export with `<redacted>` secrets that neither
   * the data directory nor the fixtures held (docs/state.md). Empty otherwise.
   */
  readonly generatedSecrets: readonly GeneratedSecret[];
  /** Stops accepting, lets in-flight requests finish, makes the state durable and releases the data directory. */
  stop(): Promise<void>;
}

export interface HandleParts {
  url: string;
  port: number;
  host: string;
  dataDir: string | undefined;
  mqttPort: number;
  mqttUrl: string;
  mqttsPort: number;
  mqttsUrl: string;
  httpsUrl?: string;
  caCertificate: () => string;
  adminToken: () => string;
  issueToken: (options?: TokenOptions) => string;
  reset: (options?: { empty?: boolean }) => Promise<void>;
  replaceState: (document: StateDocument) => Promise<void>;
  stop: () => Promise<void>;
  generatedSecrets: GeneratedSecret[];
}

function clockOf(ctx: EmuContext): EmulatorClock {
  const clock = virtualClock(ctx);
  return {
    now: () => clock.now(),
    get mode() {
      return clock.state().mode;
    },
    set: async (at, options = {}) => {
      await moveClock(ctx, { now: typeof at === 'string' ? at : at.toISOString(), frozen: options.frozen ?? true });
    },
    advance: (duration) => clock.advance(typeof duration === 'number' ? duration : parseDuration(duration)),
    freeze: () => clock.freeze(true),
    real: () => clock.real(),
  };
}

/** The public handle over one emulator's context: the same operations as the REST control plane. */
export function emulatorHandle(ctx: EmuContext, parts: HandleParts): RunningEmulator {
  const faults = faultsOf(ctx);
  return {
    url: parts.url,
    port: parts.port,
    host: parts.host,
    dataDir: parts.dataDir,
    mqttPort: parts.mqttPort,
    mqttUrl: parts.mqttUrl,
    mqttsPort: parts.mqttsPort,
    mqttsUrl: parts.mqttsUrl,
    ...(parts.httpsUrl ? { httpsUrl: parts.httpsUrl } : {}),
    get caCertificate() {
      return parts.caCertificate();
    },
    token: parts.issueToken,
    get adminToken() {
      return parts.adminToken();
    },
    reset: parts.reset,
    snapshot: async (name) => (await saveSnapshot(ctx, name)).info,
    restore: (name) => restoreSnapshot(ctx, name, parts.replaceState),
    snapshots: () => listSnapshots(ctx),
    deleteSnapshot: (name) => deleteSnapshot(ctx, name),
    clock: clockOf(ctx),
    faults: {
      add: (fault) => faults.add(fault),
      list: () => faults.list(),
      remove: (id) => faults.remove(id),
      clear: () => faults.clear(),
    },
    exportState: (options) => exportedState(ctx, options),
    requests: (filter) => journalOf(ctx).list(filter),
    onRequest: (listener) => {
      ctx.events.on(REQUEST_RECORDED, listener);
      return () => ctx.events.off(REQUEST_RECORDED, listener);
    },
    stop: parts.stop,
    generatedSecrets: parts.generatedSecrets,
  };
}
