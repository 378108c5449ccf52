import { packagePath } from './package-dir.js';

export type AuthMode = 'off' | 'on';

/** How the MQTT broker treats a CONNECT: `anonymous` admits clients without credentials, `basic` requires them. */
export type MqttAuthMode = 'anonymous' | 'basic';

/** Whether MQTT over TLS asks clients for a certificate the credentials manager holds: `off` is one-way TLS. */
export type TlsClientAuthMode = 'off' | 'required';

export interface EmulatorOptions {
  /** REST port; 0 picks a free one. Default 8080. */
  port?: number;
  host?: string;
  /** Data directory (default `./.platform-emu`); ignored with `inMemory`. */
  dataDir?: string;
  inMemory?: boolean;
  /**
   * Fixture file, or a state document from `fixtures export`, that seeds a new, empty state; `none` for an empty
   * platform.
   */
  fixtures?: string;
  /** A state document (or fixture file) that replaces the state at start, whatever the data directory holds. */
  import?: string;
  auth?: AuthMode;
  /** Per service, the revision whose answers to give where two revisions differ: `{ ecr: '1' }`. */
  compat?: Record<string, string>;
  /** Largest accepted request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** The services' asynchronous request timeout in seconds: the longest wait a command may ask for. Default 60. */
  asyncRequestTimeout?: number;
  /** MQTT port of the device gateway; 0 picks a free one. Default 1883. */
  mqttPort?: number;
  /**
   * Default `anonymous`: a client without a username connects, one with a username and password is checked against
   * the credentials manager's basic credentials. `basic`: every client must present valid basic credentials.
   */
  mqttAuth?: MqttAuthMode;
  /** Lifetime in seconds of a binary-data upload token a device gets with `bcx` `token`. Default 3600. */
  uploadTokenTtl?: number;
  /** Largest binary-data upload (blob or file) in bytes; larger ones answer 413. Default 1 GiB. */
  uploadLimit?: number;
  /**
   * Log size in bytes after which the snapshot is rewritten. Default: 16 MiB, or the size of the snapshot last read or
   * written if that is larger (a large state is not rewritten whole for every 16 MiB of log).
   */
  compactBytes?: number;
  /**
   * Extra `Host` names the emulator answers (DNS rebinding guard). Bound to a loopback address (the default), only
   * `localhost`, `127.0.0.1` and `[::1]` are accepted besides these; bound to another address, any name unless some are
   * given.
   */
  allowHosts?: string[];
  /** Entries the request journal keeps (`GET /_emu/requests`). Default 1000. */
  journalSize?: number;
  /**
   * With auth on, the secret the control plane (`/_emu`) accepts as admin token. Default: a token the emulator signs at
   * start.
   */
  adminToken?: string;
  /**
   * The application manager's name auto-generation (spec 3, `POST /applications`): off (the default), a new
   * application needs a name; on, its name must be empty and is generated. Later revision only.
   */
  generateAppNames?: boolean;
  /** Where warnings and errors go (default stderr). */
  log?: (message: string) => void;
  /**
   * Web origins besides this machine's (`http://localhost:*`, `127.0.0.1`, `[::1]`, `null`) that may call the emulator
   * from a browser (CORS) and write to it: `https://app.example.test:3000`. docs/conventions.md, "Browsers".
   */
  allowOrigins?: string[];
  /** MQTT over TLS port; 0 (the default here; `platform-emu start` uses 8883) picks a free one. */
  mqttsPort?: number;
  /**
   * Also serve the REST port's routes (and KP1 over HTTP) over HTTPS on this port; 0 picks a free one. Default: no
   * HTTPS.
   */
  httpsPort?: number;
  /**
   * The server certificate (PEM file) of MQTTS and HTTPS instead of one the local certificate authority signs; needs
   * `tlsKey`.
   */
  tlsCert?: string;
  /** The private key (PEM file) of `tlsCert`. */
  tlsKey?: string;
  /**
   * Mutual TLS on the MQTTS port for every tenant that does not say otherwise (docs/services/credentials-manager.md).
   * Default `off`.
   */
  tlsClientAuth?: TlsClientAuthMode;
}

export type EmulatorConfig = Required<
  Omit<
    EmulatorOptions,
    'dataDir' | 'log' | 'import' | 'adminToken' | 'httpsPort' | 'tlsCert' | 'tlsKey' | 'compactBytes'
  >
> & {
  dataDir: string | undefined;
  compactBytes?: number;
  adminToken?: string;
  httpsPort?: number;
  tlsCert?: string;
  tlsKey?: string;
};

export const DEFAULT_FIXTURES = packagePath('fixtures', 'default.json');

/** What a start does unless told otherwise: `resolveConfig`, the CLI's `start` options and the client read it here. */
export const START_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.platform-emu',
  fixtures: DEFAULT_FIXTURES,
  auth: 'off',
  bodyLimit: 1024 * 1024,
  asyncRequestTimeout: 60,
  mqttPort: 1883,
  mqttAuth: 'anonymous',
  uploadTokenTtl: 3600,
  uploadLimit: 1024 ** 3,
  journalSize: 1000,
  mqttsPort: 8883,
  tlsClientAuth: 'off',
} as const satisfies Partial<EmulatorOptions>;

export function resolveConfig(options: EmulatorOptions): EmulatorConfig {
  if (
    options.journalSize !== undefined &&
    (!Number.isSafeInteger(options.journalSize) || options.journalSize < 1 || options.journalSize > 1_000_000)
  ) {
    throw new RangeError(`journalSize must be a whole number from 1 to 1000000; got ${options.journalSize}.`);
  }
  return {
    port: options.port ?? START_DEFAULTS.port,
    host: options.host ?? START_DEFAULTS.host,
    inMemory: options.inMemory ?? false,
    dataDir: options.inMemory ? undefined : (options.dataDir ?? START_DEFAULTS.dataDir),
    fixtures: options.fixtures ?? START_DEFAULTS.fixtures,
    auth: options.auth ?? START_DEFAULTS.auth,
    compat: options.compat ?? {},
    bodyLimit: options.bodyLimit ?? START_DEFAULTS.bodyLimit,
    asyncRequestTimeout: options.asyncRequestTimeout ?? START_DEFAULTS.asyncRequestTimeout,
    mqttPort: options.mqttPort ?? START_DEFAULTS.mqttPort,
    mqttAuth: options.mqttAuth ?? START_DEFAULTS.mqttAuth,
    compactBytes: options.compactBytes,
    uploadTokenTtl: options.uploadTokenTtl ?? START_DEFAULTS.uploadTokenTtl,
    uploadLimit: options.uploadLimit ?? START_DEFAULTS.uploadLimit,
    allowHosts: options.allowHosts ?? [],
    journalSize: options.journalSize ?? START_DEFAULTS.journalSize,
    allowOrigins: checkAllowOrigins(options.allowOrigins ?? []),
    generateAppNames: options.generateAppNames ?? false,
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    // A library start on free ports runs beside others: no fixed MQTTS port unless asked (the CLI's start asks for
    // 8883).
    mqttsPort: options.mqttsPort ?? 0,
    tlsClientAuth: options.tlsClientAuth ?? START_DEFAULTS.tlsClientAuth,
    ...(options.httpsPort !== undefined ? { httpsPort: options.httpsPort } : {}),
    ...(options.tlsCert !== undefined ? { tlsCert: options.tlsCert } : {}),
    ...(options.tlsKey !== undefined ? { tlsKey: options.tlsKey } : {}),
  };
}

/** Whether an address to listen on is every interface of the machine (`--host 0.0.0.0`, in a container). */
export const listensEverywhere = (host: string): boolean => host === '0.0.0.0' || host === '::';

/** The URL a client uses for a port the emulator listens on: `localhost` for every interface, IPv6 in brackets. */
export function listeningUrl(scheme: 'http' | 'mqtt' | 'https' | 'mqtts', host: string, port: number): string {
  const shown = listensEverywhere(host) ? 'localhost' : host;
  return `${scheme}://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** A `listeningUrl` with another host name (a URL's `hostname`: IPv6 in brackets), its port kept. */
export function renamedUrl(url: string, name: string): string {
  const renamed = new URL(url);
  renamed.hostname = name;
  // http(s) URLs gain a trailing slash as `href`; mqtt(s) URLs have no origin.
  return renamed.origin === 'null' ? renamed.href : renamed.origin;
}

/** `http://Example.test:80/` → `http://example.test`; undefined for anything that is not a bare http(s) origin. */
export function normalizedOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return undefined;
  return url.origin;
}

/**
 * Checks `allowOrigins` (option, `--allow-origin`, `PLATFORM_EMU_ALLOW_ORIGIN`): each a bare origin such as
 * `https://app.example.test:3000`.
 */
export function checkAllowOrigins(origins: readonly string[]): string[] {
  return origins.map((origin) => {
    const normalized = origin === 'null' ? 'null' : normalizedOrigin(origin.trim());
    if (normalized === undefined) {
      throw new RangeError(
        `allowOrigins: ${JSON.stringify(origin)} is not an origin; give scheme, host and port only, for ` +
          `example http://app.example.test:3000.`,
      );
    }
    return normalized;
  });
}
