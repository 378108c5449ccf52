import { InvalidArgumentError, Option } from 'commander';
import { dataOption, urlOption } from '../shared.js';

/** How the device commands find the emulator and authenticate to its REST side. */
export interface TargetOptions {
  url?: string;
  data?: string;
  accessToken?: string;
  tenant?: string;
}

export const targetOptions = (): Option[] => [
  urlOption(),
  dataOption(),
  new Option(
    '--access-token <jwt>',
    'bearer token for REST calls (default: with --auth on, a test token fetched from the emulator)',
  ).env('PLATFORM_EMU_TOKEN'),
  new Option('--tenant <id>', 'tenant of the fetched test token (default: the default tenant)'),
];

/** `--metadata`: a JSON object (a usage error otherwise). */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('expected a JSON object, like {"model":"m1"}.');
  return parsed as Record<string, unknown>;
}

/** The flags of `device simulate`. */
export interface SimulateOptions extends TargetOptions {
  appVersion: string;
  token?: string[];
  register?: boolean;
  id?: string;
  fleet?: number;
  /** `--workers <n>`: worker threads the fleet is spread over (default from its size and the cores). */
  workers?: number;
  rules?: string;
  interactive?: boolean;
  metadata?: Record<string, unknown>;
  /** The `--telemetry` spec as given (checked when parsed); each process of a fleet parses it again. */
  telemetry?: string;
  interval: number;
  json?: boolean;
  mqttUrl?: string;
  /** `--qos <0|1>`: the QoS of the devices' requests. */
  qos: 0 | 1;
  /** false with `--no-config`. */
  config: boolean;
  rejectConfig?: boolean;
  /** `--config-name <name...>`: named configurations observed too. */
  configName?: string[];
  /** false with `--no-software`. */
  software: boolean;
  rejectSoftware?: boolean;
  upload?: string;
  username?: string;
  password?: string;
  /** MQTT over TLS; `ca`, `cert` and `key` are PEM files. */
  tls?: boolean;
  ca?: string;
  cert?: string;
  key?: string;
}
