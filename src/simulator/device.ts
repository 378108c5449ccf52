import { requestUploadToken, uploadBlobFile } from '../client/binary-data.js';
import { EmulatorHttpError, type EmulatorClient } from '../client/http-client.js';
import type { Kp1Command, Kp1Device } from '../client/kp1-device.js';
import type { DeviceEvents, DeviceEvent, DeviceEventName, DeviceEventOf, ReceivedCommand } from './events.js';
import { OfferExchange, type OfferHandling } from './offers.js';
import { answerFrom, ruleFor, type Answer, type Rules } from './rules.js';
import type { SampleMaker } from './telemetry.js';

export interface DeviceBehaviour {
  rules?: Rules;
  /** Decides instead of the rules (a person, with `--interactive`; a test); gets the rule's answer as a suggestion. */
  decide?: (command: ReceivedCommand, suggested: Answer) => Answer | Promise<Answer>;
  metadata?: Record<string, unknown>;
  telemetry?: { makeSample: SampleMaker; intervalMs: number };
  /** Configuration offered over `cmx`: applied unless false (not asked) or 'reject'. */
  config?: OfferHandling;
  /** Named configurations (`cmx` `config/json/<name>`) observed and handled like the default one (`config`). */
  configNames?: readonly string[];
  /** Software offered over `cmx_ota`: applied unless false (not asked) or 'reject'. */
  software?: OfferHandling;
  /** A file uploaded once as a blob (`bcx` token, then `POST /bcx/api/v1/binary-data`). */
  upload?: string;
}

/** A device simulated in this process, answering commands on its own KP1 connection (see docs/devices.md). */
export interface SimulatedDevice {
  readonly token: string;
  readonly appVersion: string;
  /** The endpoint the token belongs to, when known: registered by this simulation, or given in its options. */
  readonly endpointId: string | undefined;
  /** The broker the device is connected to. */
  readonly mqttUrl: string;
  /** Commands answered so far (results the server accepted). */
  readonly answered: number;
  /** The configuration (`configId`) it last applied; undefined before the first. */
  readonly configId: string | undefined;
  /** The software version it last applied; undefined before the first. */
  readonly softwareVersion: string | undefined;
  /** Its events so far, oldest first (the last 1000). */
  readonly events: readonly DeviceEvent[];
  on<N extends DeviceEventName>(name: N, listener: (event: DeviceEventOf<N>) => void): this;
  off<N extends DeviceEventName>(name: N, listener: (event: DeviceEventOf<N>) => void): this;
  /**
   * The first event of that name (already seen, or still to come) that matches; rejects when the device stops
   * first, or after `timeoutMs` when given.
   */
  next<N extends DeviceEventName>(
    name: N,
    match?: (event: DeviceEventOf<N>) => boolean,
    options?: { timeoutMs?: number },
  ): Promise<DeviceEventOf<N>>;
  /** Disconnects; a command still being answered is left unanswered. */
  stop(): Promise<void>;
}

/** One simulated device: answers commands on its KP1 connection, publishes metadata and telemetry. */
export class DeviceSimulation implements SimulatedDevice {
  private answeredCount = 0;
  /** Commands received and not yet acknowledged by the server, so that repeated pushes are answered once. */
  private readonly inFlight = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private telemetryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  private readonly offers: OfferExchange[];

  constructor(
    private readonly kp1: Kp1Device,
    private readonly behaviour: DeviceBehaviour,
    readonly mqttUrl: string,
    readonly endpointId: string | undefined,
    private readonly log: DeviceEvents,
    /** The emulator's REST side, for the upload. */
    private readonly rest?: EmulatorClient,
  ) {
    const emit = (event: DeviceEvent) => this.emit(event);
    this.offers = (['config', 'software'] as const)
      .filter((kind) => (behaviour[kind] ?? true) !== false)
      .map((kind) => new OfferExchange(kp1, kind, behaviour[kind] === 'reject', emit));
    if ((behaviour.config ?? true) !== false) {
      for (const name of behaviour.configNames ?? [])
        this.offers.push(new OfferExchange(kp1, 'config', behaviour.config === 'reject', emit, name));
    }
    kp1.on('commands', (commandType: string, commands: Kp1Command[]) => this.receive(commandType, commands));
    kp1.on('push', (extension: string, resource: string, payload: unknown) => {
      void this.offers.find((offer) => offer.extension === extension && offer.resource === resource)?.offered(payload);
    });
    kp1.once('close', () => {
      const message = `The connection to ${mqttUrl} was lost (is the emulator still running?).`;
      this.emit({ event: 'disconnected', token: this.token, message });
      void this.shutdown(message);
    });
  }

  get token(): string {
    return this.kp1.token;
  }

  get appVersion(): string {
    return this.kp1.options.appVersion;
  }

  get answered(): number {
    return this.answeredCount;
  }

  get configId(): string | undefined {
    return this.offers.find((offer) => offer.kind === 'config' && offer.configName === undefined)?.applied;
  }

  get softwareVersion(): string | undefined {
    return this.offers.find((offer) => offer.kind === 'software')?.applied;
  }

  get events(): readonly DeviceEvent[] {
    return this.log.history;
  }

  on<N extends DeviceEventName>(name: N, listener: (event: DeviceEventOf<N>) => void): this {
    this.log.on(name, listener as (event: DeviceEvent) => void);
    return this;
  }

  off<N extends DeviceEventName>(name: N, listener: (event: DeviceEventOf<N>) => void): this {
    this.log.off(name, listener as (event: DeviceEvent) => void);
    return this;
  }

  next<N extends DeviceEventName>(
    name: N,
    match?: (event: DeviceEventOf<N>) => boolean,
    options: { timeoutMs?: number } = {},
  ): Promise<DeviceEventOf<N>> {
    return this.log.next(name, match, options.timeoutMs);
  }

  private emit(event: DeviceEvent): void {
    if (!this.stopped) this.log.emit(event);
  }

  /**
   * After connecting: metadata; the configuration and software offered (asked with `observe`, so later offers are
   * pushed); any commands left outstanding for the types the rules name; the upload; then telemetry, its first
   * sample `phaseMs` into the interval (a fleet spreads its devices over the interval instead of all at once).
   */
  async start(phaseMs = 0): Promise<void> {
    this.emit({
      event: 'connected',
      token: this.token,
      appVersion: this.appVersion,
      mqttUrl: this.mqttUrl,
      ...(this.endpointId ? { endpointId: this.endpointId } : {}),
    });
    if (this.behaviour.metadata) await this.publishMetadata(this.behaviour.metadata);
    for (const offer of this.offers) await offer.start();
    for (const commandType of Object.keys(this.behaviour.rules?.commands ?? {})) {
      try {
        this.receive(commandType, await this.kp1.poll(commandType));
      } catch (err) {
        this.emit({ event: 'error', token: this.token, message: (err as Error).message });
      }
    }
    if (this.behaviour.upload !== undefined && !this.stopped) await this.upload(this.behaviour.upload);
    const telemetry = this.behaviour.telemetry;
    if (!telemetry || this.stopped) return;
    const every = () => {
      this.telemetryTimer = setInterval(() => void this.publishSample(telemetry.makeSample()), telemetry.intervalMs);
    };
    if (phaseMs <= 0) return every();
    this.telemetryTimer = setTimeout(() => {
      if (this.stopped) return;
      void this.publishSample(telemetry.makeSample());
      every();
    }, phaseMs);
  }

  private async publishMetadata(metadata: Record<string, unknown>): Promise<void> {
    try {
      const reply = await this.kp1.request('epmx', 'update/keys', metadata);
      if (reply.ok) this.emit({ event: 'metadata', token: this.token, metadata });
      else
        this.emit({
          event: 'error',
          token: this.token,
          statusCode: reply.statusCode,
          message: `metadata rejected: ${reply.reasonPhrase ?? ''}`.trim(),
        });
    } catch (err) {
      this.emit({ event: 'error', token: this.token, message: `metadata: ${(err as Error).message}` });
    }
  }

  private async upload(path: string): Promise<void> {
    try {
      if (!this.rest) throw new Error("the emulator's REST URL is not known");
      const blob = await uploadBlobFile(this.rest, await requestUploadToken(this.kp1), path);
      this.emit({
        event: 'uploaded',
        token: this.token,
        blobId: blob.id,
        name: blob.name,
        size: blob.size,
        url: blob.url,
      });
    } catch (err) {
      const statusCode = err instanceof EmulatorHttpError ? { statusCode: err.status } : {};
      this.emit({
        event: 'error',
        token: this.token,
        ...statusCode,
        message: `upload of ${path}: ${(err as Error).message}`,
      });
    }
  }

  private async publishSample(sample: Record<string, unknown>): Promise<void> {
    try {
      const reply = await this.kp1.request('dcx', 'json', sample);
      if (reply.ok) this.emit({ event: 'telemetry', token: this.token, sample, accepted: true });
      else
        this.emit({
          event: 'telemetry',
          token: this.token,
          sample,
          accepted: false,
          statusCode: reply.statusCode,
          message: reply.reasonPhrase ?? 'no reason given',
        });
    } catch (err) {
      this.emit({ event: 'telemetry', token: this.token, sample, accepted: false, message: (err as Error).message });
    }
  }

  private receive(commandType: string, commands: Kp1Command[]): void {
    for (const command of commands) {
      const key = `${commandType}#${command.id}`;
      if (this.stopped || this.inFlight.has(key) || typeof command.id !== 'number') continue;
      this.inFlight.add(key);
      void this.handle(commandType, command, key);
    }
  }

  private async handle(commandType: string, command: Kp1Command, key: string): Promise<void> {
    const received: ReceivedCommand = {
      token: this.token,
      appVersion: this.appVersion,
      endpointId: this.endpointId,
      commandType,
      commandId: command.id,
      payload: command.payload,
    };
    this.emit({ event: 'command', token: this.token, commandType, commandId: command.id, payload: command.payload });
    try {
      const suggested = answerFrom(ruleFor(this.behaviour.rules, commandType), {
        ...received,
        now: new Date().toISOString(),
      });
      const answer = this.behaviour.decide ? await this.behaviour.decide(received, suggested) : suggested;
      if (answer.ignore) {
        this.emit({ event: 'ignored', token: this.token, commandType, commandId: command.id });
        return;
      }
      if (answer.delayMs > 0) await this.sleep(answer.delayMs);
      if (this.stopped) return;
      const outcome = {
        statusCode: answer.statusCode,
        ...(answer.reasonPhrase !== undefined ? { reasonPhrase: answer.reasonPhrase } : {}),
        ...(answer.payload !== undefined ? { payload: answer.payload } : {}),
      };
      const reply = await this.kp1.answer(commandType, [{ id: command.id, ...outcome }]);
      if (!reply.ok) {
        this.emit({
          event: 'error',
          token: this.token,
          statusCode: reply.statusCode,
          message: `result for ${commandType} #${command.id} rejected: ${reply.reasonPhrase ?? ''}`.trim(),
        });
        return;
      }
      this.inFlight.delete(key);
      this.answeredCount++;
      this.emit({ event: 'answered', token: this.token, commandType, commandId: command.id, ...outcome });
    } catch (err) {
      this.emit({
        event: 'error',
        token: this.token,
        message: `${commandType} #${command.id}: ${(err as Error).message}`,
      });
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  stop(): Promise<void> {
    return this.shutdown(`the device ${this.token} was stopped`);
  }

  private shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      clearInterval(this.telemetryTimer);
      for (const timer of this.timers) clearTimeout(timer);
      this.log.end(reason);
      await this.kp1.close();
    })();
    return this.stopping;
  }
}
