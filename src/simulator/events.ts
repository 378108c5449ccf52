/** A command as the simulated device received it. */
export interface ReceivedCommand {
  token: string;
  appVersion: string;
  endpointId?: string;
  commandType: string;
  commandId: number;
  payload: unknown;
}

/** What a simulated device reports, as it happens. */
export type DeviceEvent =
  | { event: 'registered'; token: string; endpointId: string; appVersion: string }
  | { event: 'connected'; token: string; appVersion: string; mqttUrl: string; endpointId?: string }
  | { event: 'metadata'; token: string; metadata: Record<string, unknown> }
  | { event: 'command'; token: string; commandType: string; commandId: number; payload: unknown }
  | {
      event: 'answered';
      token: string;
      commandType: string;
      commandId: number;
      statusCode: number;
      reasonPhrase?: string;
      payload?: unknown;
    }
  | { event: 'ignored'; token: string; commandType: string; commandId: number }
  /** One per sample sent: `accepted`, or refused with the server's status code and reason (or why no reply came). */
  | {
      event: 'telemetry';
      token: string;
      sample: Record<string, unknown>;
      accepted: boolean;
      statusCode?: number;
      message?: string;
    }
  /** The configuration offered over `cmx`; `configId: ""` (and `config: null`) is "no configuration". */
  | { event: 'config'; token: string; configId: string; config: unknown; configName?: string }
  | { event: 'config-applied'; token: string; configId: string; configName?: string }
  | {
      event: 'config-rejected';
      token: string;
      configId: string;
      statusCode: number;
      reasonPhrase: string;
      configName?: string;
    }
  /** The software offered over `cmx_ota`; `version: ""` (and `specification: null`) is "nothing offered". */
  | { event: 'software'; token: string; version: string; specification: unknown }
  | { event: 'software-applied'; token: string; version: string }
  | { event: 'software-rejected'; token: string; version: string; statusCode: number; reasonPhrase: string }
  /** A file uploaded as a blob (`--upload`): the blob's id, size and download URL. */
  | { event: 'uploaded'; token: string; blobId: string; name: string; size: number; url: string }
  | { event: 'error'; token: string; message: string; statusCode?: number }
  /** The MQTT connection ended without `stop()`: the device has stopped. */
  | { event: 'disconnected'; token: string; message: string };

export type DeviceEventName = DeviceEvent['event'];
export type DeviceEventOf<N extends DeviceEventName> = Extract<DeviceEvent, { event: N }>;
type Listener = (event: DeviceEvent) => void;

/** Enough for a test to look back at; a long-running simulation does not grow without bound. */
const HISTORY_LIMIT = 1000;

/** A device's events: kept (the last `keep`, 1000 by default), handed to listeners, and awaited with `next`. */
export class DeviceEvents {
  readonly history: DeviceEvent[] = [];
  private readonly listeners = new Map<DeviceEventName, Set<Listener>>();
  private readonly waiters = new Set<{
    name: DeviceEventName;
    test: (event: DeviceEvent) => boolean;
    resolve: Listener;
    reject: (err: Error) => void;
  }>();
  private ended: Error | undefined;

  constructor(
    private readonly onEvent?: (event: DeviceEvent) => void,
    private readonly keep = HISTORY_LIMIT,
  ) {}

  emit(event: DeviceEvent): void {
    if (this.keep > 0) {
      this.history.push(event);
      if (this.history.length > this.keep) this.history.shift();
    }
    this.onEvent?.(event);
    for (const listener of this.listeners.get(event.event) ?? []) listener(event);
    for (const waiter of this.waiters) {
      if (waiter.test(event)) waiter.resolve(event);
    }
  }

  on(name: DeviceEventName, listener: Listener): void {
    const set = this.listeners.get(name) ?? new Set();
    this.listeners.set(name, set.add(listener));
  }

  off(name: DeviceEventName, listener: Listener): void {
    this.listeners.get(name)?.delete(listener);
  }

  /** The first matching event already seen or still to come; rejects when the device stops first or time runs out. */
  next<N extends DeviceEventName>(
    name: N,
    match: (event: DeviceEventOf<N>) => boolean = () => true,
    timeoutMs?: number,
  ): Promise<DeviceEventOf<N>> {
    const test = (event: DeviceEvent) => event.event === name && match(event as DeviceEventOf<N>);
    const seen = this.history.find(test);
    if (seen) return Promise.resolve(seen as DeviceEventOf<N>);
    if (this.ended) return Promise.reject(this.failure(name, this.ended.message));
    return new Promise<DeviceEventOf<N>>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        name,
        test,
        resolve: (event: DeviceEvent) => settle(() => resolve(event as DeviceEventOf<N>)),
        reject: (err: Error) => settle(() => reject(err)),
      };
      const settle = (done: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        done();
      };
      if (timeoutMs !== undefined)
        timer = setTimeout(() => waiter.reject(this.failure(name, `none within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** No more events: waiters still waiting are told why. */
  end(reason: string): void {
    this.ended ??= new Error(reason);
    for (const waiter of this.waiters) waiter.reject(this.failure(waiter.name, reason));
  }

  private failure(name: DeviceEventName, why: string): Error {
    const seen =
      this.history
        .slice(-20)
        .map((event) => event.event)
        .join(', ') || 'none';
    return new Error(`No "${name}" event: ${why} (events so far: ${seen}).`);
  }
}
