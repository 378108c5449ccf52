import { open } from 'node:fs/promises';
import { openEmulator } from './target.js';
import type { DeviceBehaviour, SimulatedDevice } from './device.js';
import { SimulatorOptionsError } from './errors.js';
import type { DeviceEvent, ReceivedCommand } from './events.js';
import { startFleet, type MqttLogin } from './fleet.js';
import { CONFIG_NAME_PATTERN, type OfferHandling } from './offers.js';
import { loadRules, validateRules, type Answer, type Rules } from './rules.js';
import { parseTelemetrySpec, type SampleMaker } from './telemetry.js';

/** How a simulated device behaves: the same for one device in a test and for a CLI fleet. */
export interface BehaviourOptions {
  /**
   * How to answer commands: rules as an object, or the path of a JSON rules file. Default: 200 with the request
   * payload.
   */
  rules?: Rules | string;
  /** Decides each answer instead of the rules; gets the rule's answer as a suggestion. */
  decide?: (command: ReceivedCommand, suggested: Answer) => Answer | Promise<Answer>;
  /** Published once connected (KP1 `epmx` `update/keys`). */
  metadata?: Record<string, unknown>;
  /**
   * Data samples sent every `intervalMs` (default 1000) to `dcx` `json`: a spec like `"temp=20..25,n=seq"`, or a
   * function.
   */
  telemetry?: { sample: string | SampleMaker; intervalMs?: number };
  /**
   * The configuration offered over `cmx`: applied (true, default), reported rejected ('reject'), or not asked (false).
   */
  config?: OfferHandling;
  /**
   * Named configurations (7/CMP use case 3: `cmx` `config/json/<name>`) to observe as well, each handled like the
   * default one (`config` says how); names are letters, digits, `_` and `-`, up to 64, not only digits, not `status` or
   * `error`.
   */
  configNames?: readonly string[];
  /**
   * The software offered over `cmx_ota`: applied (true, default), reported rejected ('reject'), or not asked (false).
   */
  software?: OfferHandling;
  /** A file to upload once as a blob, after the metadata (`bcx` upload token, then `POST /bcx/api/v1/binary-data`). */
  upload?: string;
}

export interface SimulateDeviceOptions extends BehaviourOptions {
  /** The emulator: the handle `startEmulator()` returns (its `url` and `mqttUrl`), or the REST URL of a running one. */
  emulator?: string | { url: string; mqttUrl?: string; mqttsUrl?: string; caCertificate?: string; adminToken?: string };
  /** The broker; default: the emulator's `mqttUrl`, else what its `GET /_emu/health` reports. */
  mqttUrl?: string;
  appVersion: string;
  /** The endpoint token; required unless `register` (then generated when left out). */
  token?: string;
  /** Registers the endpoint first (`POST /epr/api/v1/endpoints`). */
  register?: boolean;
  /**
   * With `register`, the endpoint id to register (default: generated); otherwise the id the token belongs to, if known.
   */
  endpointId?: string;
  /** Bearer token for registering; against an emulator with auth on, a test token is fetched when left out. */
  accessToken?: string;
  /** Tenant of that fetched test token (default: the default tenant). */
  tenant?: string;
  /**
   * With auth on, the control plane's admin token that fetching a test token needs (default: the handle's
   * `adminToken`).
   */
  adminToken?: string;
  /** MQTT login (CONNECT username), for a broker with `mqttAuth: 'basic'`. */
  username?: string;
  /** MQTT login password; needs `username`. */
  password?: string;
  /** Connect over MQTT over TLS: to the emulator's `mqttsUrl` (or `mqttUrl` when it is `mqtts://`). */
  tls?: boolean;
  /**
   * With `tls`: the root certificate (PEM) to trust; default the emulator's (`caCertificate`, or `GET
   * /_emu/tls/ca.pem`).
   */
  ca?: string | Buffer;
  /** With `tls`: a client certificate (PEM) and its key, for mutual TLS. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Every event as it happens, including `registered` and `connected` before the device is returned. */
  onEvent?: (event: DeviceEvent) => void;
}

/**
 * Rules loaded and checked, the telemetry spec parsed: everything wrong is a SimulatorOptionsError before any
 * connection.
 */
export async function behaviourFrom(options: BehaviourOptions): Promise<DeviceBehaviour> {
  const rules =
    typeof options.rules === 'string'
      ? await loadRules(options.rules)
      : options.rules === undefined
        ? undefined
        : validateRules(options.rules);
  let telemetry: DeviceBehaviour['telemetry'];
  if (options.telemetry) {
    const { sample, intervalMs = 1000 } = options.telemetry;
    if (!Number.isInteger(intervalMs) || intervalMs < 1)
      throw new SimulatorOptionsError(
        `telemetry.intervalMs must be a whole number of milliseconds of at least 1; got ${intervalMs}.`,
      );
    telemetry = { makeSample: typeof sample === 'string' ? parseTelemetrySpec(sample) : sample, intervalMs };
  }
  for (const kind of ['config', 'software'] as const) {
    const handling = options[kind];
    if (handling !== undefined && typeof handling !== 'boolean' && handling !== 'reject')
      throw new SimulatorOptionsError(`${kind} must be true, false or 'reject'; got ${JSON.stringify(handling)}.`);
  }
  for (const name of options.configNames ?? []) {
    if (typeof name !== 'string' || !CONFIG_NAME_PATTERN.test(name))
      throw new SimulatorOptionsError(
        `configNames: ${JSON.stringify(name)} is not a configuration name (letters, digits, _ and -, up to 64, ` +
          'not only digits, not status or error).',
      );
  }
  if (options.upload !== undefined) await checkReadable(options.upload);
  return {
    rules,
    decide: options.decide,
    metadata: options.metadata,
    telemetry,
    config: options.config,
    ...(options.configNames ? { configNames: [...new Set(options.configNames)] } : {}),
    software: options.software,
    upload: options.upload,
  };
}

/** The file to upload is opened once before any connection: a typo is an options error, not a failed upload later. */
async function checkReadable(path: string): Promise<void> {
  try {
    const file = await open(path, 'r');
    try {
      if (!(await file.stat()).isFile()) throw new Error('not a regular file');
    } finally {
      await file.close();
    }
  } catch (err) {
    throw new SimulatorOptionsError(`Cannot read the file to upload, ${path}: ${(err as Error).message}`);
  }
}

/** The MQTT login, if any: a password needs a user name (MQTT 3.1.1 sends none without one). */
export function mqttLogin(options: { username?: string; password?: string }): MqttLogin | undefined {
  if (options.password !== undefined && !options.username)
    throw new SimulatorOptionsError('A password needs a user name to log in with.');
  if (!options.username) return undefined;
  return { username: options.username, ...(options.password !== undefined ? { password: options.password } : {}) };
}

/**
 * Connects one simulated device to the emulator's broker and starts it. Resolves once it is connected, its
 * metadata published, the configuration and software offered handled, the commands left outstanding for the types
 * its rules name picked up and its file uploaded.
 */
export async function simulateDevice(options: SimulateDeviceOptions): Promise<SimulatedDevice> {
  if (!options.token && !options.register)
    throw new SimulatorOptionsError('Give the endpoint token (token), or register a new endpoint (register: true).');
  const behaviour = await behaviourFrom(options);
  const login = mqttLogin(options);
  const emulator = typeof options.emulator === 'string' ? { url: options.emulator } : options.emulator;
  if ((options.cert === undefined) !== (options.key === undefined))
    throw new SimulatorOptionsError(
      'A client certificate (cert) needs its private key (key), and a key its certificate.',
    );
  if (!options.tls && (options.ca ?? options.cert) !== undefined)
    throw new SimulatorOptionsError('ca, cert and key are for MQTT over TLS: add tls: true.');
  let mqttUrl = options.mqttUrl ?? (options.tls ? emulator?.mqttsUrl : emulator?.mqttUrl);
  let ca = options.ca ?? (options.tls ? emulator?.caCertificate : undefined);
  // Why the REST side is needed, as the end of the message when the emulator's URL is missing.
  const needsRest = options.register
    ? ' to register the endpoint'
    : options.upload !== undefined
      ? ' to upload a file'
      : !mqttUrl
        ? ', or mqttUrl'
        : options.tls && ca === undefined
          ? ' to fetch its root certificate, or ca'
          : undefined;
  const auth = { ...options, adminToken: options.adminToken ?? emulator?.adminToken };
  const target = needsRest ? await openEmulator(requireUrl(emulator?.url, needsRest), auth) : undefined;
  mqttUrl ??= options.tls ? (target?.health.mqtts as { url?: string } | undefined)?.url : target?.health.mqtt?.url;
  if (!mqttUrl)
    throw new SimulatorOptionsError(
      `The emulator at ${emulator?.url} reports no ${options.tls ? 'MQTTS' : 'MQTT'} URL; give mqttUrl.`,
    );
  if (options.tls && ca === undefined && target)
    ca = (await target.client.request('GET', '/_emu/tls/ca.pem')).raw.toString('utf8');
  const [device] = await startFleet({
    appVersion: options.appVersion,
    devices: [{ token: options.token, endpointId: options.endpointId }],
    mqttUrl,
    behaviour,
    registerWith: options.register ? target!.client : undefined,
    rest: target?.client,
    login,
    ...(options.tls ? { tls: { ca, cert: options.cert, key: options.key } } : {}),
    onEvent: options.onEvent,
  });
  return device;
}

function requireUrl(url: string | undefined, why: string): string {
  if (url) return url;
  throw new SimulatorOptionsError(`Give the emulator (the handle startEmulator returns, or its URL)${why}.`);
}
