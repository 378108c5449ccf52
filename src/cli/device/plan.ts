import { availableParallelism } from 'node:os';
import type { DeviceIdentity } from '../../simulator/fleet.js';
import { CliError } from '../shared.js';

const PLACEHOLDER = /\{(n+)\}/g;

/** `meter-{nnn}` with index 7 is `meter-007`; `dev-{n}` is `dev-7`. */
export function expandPattern(pattern: string, index: number): string {
  return pattern.replace(PLACEHOLDER, (_m, ns: string) => String(index).padStart(ns.length, '0'));
}

const hasPlaceholder = (value: string) => new RegExp(PLACEHOLDER.source).test(value);

/**
 * Who to simulate. Tokens are listed (`--token a,b`) or one pattern with `{n}` for `--fleet n`;
 * with `--register`, tokens and ids may be left out and the emulator generates them.
 */
export function planFleet(options: {
  token?: string[];
  id?: string;
  fleet?: number;
  register?: boolean;
}): DeviceIdentity[] {
  const tokens = options.token ?? [];
  if (!options.register && tokens.length === 0)
    throw new CliError('Give the device token(s) with --token, or --register new endpoints.', 2);
  const single = tokens.length <= 1;
  const size = options.fleet ?? Math.max(tokens.length, 1);
  if (!single && size !== tokens.length)
    throw new CliError(`--fleet ${size} does not match the ${tokens.length} tokens given.`, 2);
  if (size > 1 && single && tokens.length === 1 && !hasPlaceholder(tokens[0])) {
    throw new CliError(
      `--fleet ${size} needs distinct tokens: write the token as a pattern, like --token 'meter-{nnn}-token', ` +
        `or list ${size} tokens.`,
      2,
    );
  }
  if (size > 1 && options.id && !hasPlaceholder(options.id))
    throw new CliError(`--fleet ${size} needs an --id pattern with {n}, like --id 'meter-{nnn}'.`, 2);
  if (options.id && !options.register) throw new CliError('--id is only used with --register.', 2);
  const identities: DeviceIdentity[] = [];
  for (let i = 1; i <= size; i++) {
    const token = single ? (tokens[0] !== undefined ? expandPattern(tokens[0], i) : undefined) : tokens[i - 1];
    identities.push({ token, endpointId: options.id ? expandPattern(options.id, i) : undefined });
  }
  const distinct = new Set(identities.map((d) => d.token).filter(Boolean));
  if (distinct.size !== identities.filter((d) => d.token).length)
    throw new CliError('The same token is given twice; each simulated device needs its own token.', 2);
  return identities;
}

/**
 * Devices one worker thread keeps up with at one sample per device and second, with room to spare (docs/devices.md
 * says how this was measured).
 */
export const DEVICES_PER_WORKER = 2_500;

/**
 * How many worker threads a fleet of `size` is spread over: `--workers`, else one per DEVICES_PER_WORKER devices, at
 * most one per core. 1 runs every device in the CLI's own thread. `--interactive` asks one question at a time in
 * this terminal, so it runs in one thread.
 */
export function workerCount(
  options: { workers?: number; interactive?: boolean },
  size: number,
  cores = availableParallelism(),
): number {
  if (options.workers === undefined) {
    return options.interactive ? 1 : Math.max(1, Math.min(Math.ceil(size / DEVICES_PER_WORKER), cores));
  }
  if (options.workers > 1 && options.interactive)
    throw new CliError('--interactive asks its questions from one thread: leave out --workers (or give 1).', 2);
  if (options.workers > size)
    throw new CliError(
      `--workers ${options.workers} is more than the ${size} device${size === 1 ? '' : 's'} to simulate.`,
      2,
    );
  return options.workers;
}
