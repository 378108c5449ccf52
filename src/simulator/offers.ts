import type { Kp1Device } from '../client/kp1-device.js';
import type { DeviceEvent } from './events.js';

/**
 * What a simulated device does with the configuration or software offered to it: apply (true, the default), report it
 * rejected, or not ask (false).
 */
export type OfferHandling = boolean | 'reject';

/** The two offers a device is made over the same exchange (spec 4): configuration on `cmx`, software on `cmx_ota`. */
export type OfferKind = 'config' | 'software';

export const OFFER_EXTENSION: Record<OfferKind, string> = { config: 'cmx', software: 'cmx_ota' };
export const OFFER_RESOURCE = 'config/json';

/** Names of named configurations (7/CMP use case 3), as the registry takes them (docs/devices.md). */
export const CONFIG_NAME_PATTERN = /^(?!\d+$|status$|error$)[a-zA-Z0-9_-]{1,64}$/;

/** Sent with a rejection on `applied/json`: the registry records it, and the device keeps what it has. */
export const REJECTION = { statusCode: 400, reasonPhrase: 'Rejected by the simulated device.' };

interface Offer {
  configId: string;
  statusCode: number;
  config: unknown;
}

/**
 * `{}` (nothing new) and anything malformed are not offers; like the platform's solution clients, a message whose
 * `statusCode` is not 200 is not one either.
 */
function isOffer(payload: unknown): payload is Offer {
  if (typeof payload !== 'object' || payload === null) return false;
  const { configId, statusCode } = payload as { configId?: unknown; statusCode?: unknown };
  return typeof configId === 'string' && statusCode === 200;
}

/**
 * One device's side of the `cmx` or `cmx_ota` exchange: asks once with `observe`, then handles the answer and every
 * push in order. An offer it has not handled yet is shown and applied (or rejected); `configId: ""` (none) is shown
 * once and not reported, since `applied/json` needs a configId.
 */
export class OfferExchange {
  /**
   * The last offer handled: a repeat of it (the same push on both topics) is ignored; it is what the device says it
   * has.
   */
  private known: string | undefined;
  private appliedId: string | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly kp1: Kp1Device,
    readonly kind: OfferKind,
    private readonly reject: boolean,
    private readonly emit: (event: DeviceEvent) => void,
    /** A named configuration (`config/json/<configName>`) instead of the default one; configurations only. */
    readonly configName?: string,
  ) {}

  get extension(): string {
    return OFFER_EXTENSION[this.kind];
  }

  /** `config/json`, or `config/json/<configName>`: where it asks and where its pushes come. */
  get resource(): string {
    return this.configName === undefined ? OFFER_RESOURCE : `${OFFER_RESOURCE}/${this.configName}`;
  }

  private get appliedResource(): string {
    return this.configName === undefined ? 'applied/json' : `applied/json/${this.configName}`;
  }

  private get named(): { configName?: string } {
    return this.configName === undefined ? {} : { configName: this.configName };
  }

  /** The configId (or software version) last applied; undefined before the first. */
  get applied(): string | undefined {
    return this.appliedId;
  }

  /** Asks `config/json` with `observe`; resolves once the answer is handled (applied, rejected or shown). */
  async start(): Promise<void> {
    let reply;
    try {
      reply = await this.kp1.observe(
        this.extension,
        this.resource,
        this.known !== undefined ? { configId: this.known } : {},
      );
    } catch (err) {
      this.failed(`${this.extension} ${this.resource}: ${(err as Error).message}`);
      return;
    }
    if (!reply.ok)
      return this.failed(
        `${this.extension} ${this.resource} refused: ${reply.reasonPhrase ?? ''}`.trim(),
        reply.statusCode,
      );
    await this.offered(reply.payload);
  }

  /** An answer or a push: handled one at a time, in the order received. */
  offered(payload: unknown): Promise<void> {
    const handled = this.queue.then(() => this.handle(payload));
    this.queue = handled;
    return handled;
  }

  private async handle(payload: unknown): Promise<void> {
    if (!isOffer(payload) || payload.configId === this.known) return;
    const { configId, config } = payload;
    this.known = configId;
    const token = this.kp1.token;
    this.emit(
      this.kind === 'config'
        ? { event: 'config', token, configId, config, ...this.named }
        : { event: 'software', token, version: configId, specification: config },
    );
    if (configId === '') return;
    const report = this.reject ? { configId, ...REJECTION } : { configId };
    try {
      const reply = await this.kp1.request(this.extension, this.appliedResource, report);
      if (!reply.ok)
        return this.failed(
          `${this.extension} ${this.appliedResource} for ${configId} refused: ${reply.reasonPhrase ?? ''}`.trim(),
          reply.statusCode,
        );
    } catch (err) {
      return this.failed(`${this.extension} ${this.appliedResource} for ${configId}: ${(err as Error).message}`);
    }
    if (this.reject) {
      this.emit(
        this.kind === 'config'
          ? { event: 'config-rejected', token, configId, ...REJECTION, ...this.named }
          : { event: 'software-rejected', token, version: configId, ...REJECTION },
      );
      return;
    }
    this.appliedId = configId;
    this.emit(
      this.kind === 'config'
        ? { event: 'config-applied', token, configId, ...this.named }
        : { event: 'software-applied', token, version: configId },
    );
  }

  private failed(message: string, statusCode?: number): void {
    this.emit({ event: 'error', token: this.kp1.token, message, ...(statusCode !== undefined ? { statusCode } : {}) });
  }
}
