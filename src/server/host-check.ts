import type { Request } from 'express';
import type { EmulatorConfig } from '../config.js';
import { HttpError } from './errors.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Whether the emulator listens only on this machine (the default), where a foreign `Host` can only be DNS rebinding.
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `Host` without its port, lower case: `LOCALHOST:8080` → `localhost`, `[::1]:8080` → `[::1]`. */
function hostName(header: string): string {
  const end = header.startsWith('[') ? header.indexOf(']') + 1 : header.lastIndexOf(':');
  return (end > 0 ? header.slice(0, end) : header).toLowerCase();
}

/**
 * The `Host` names the emulator answers (DNS rebinding: a web page whose name resolves to 127.0.0.1 must not reach
 * it). Bound to a loopback address: `localhost`, `127.0.0.1`, `[::1]` and the `--allow-host` names. Bound to another
 * address: any name, unless `--allow-host` names are given. Returns undefined when every name is accepted.
 */
export function hostCheck(config: Pick<EmulatorConfig, 'host' | 'allowHosts'>): ((req: Request) => void) | undefined {
  if (!isLoopback(config.host) && config.allowHosts.length === 0) return undefined;
  const allowed = new Set([
    ...LOOPBACK_NAMES,
    ...config.allowHosts.map((h) => hostName(/:.*:/.test(h) && !h.startsWith('[') ? `[${h}]` : h)),
  ]);
  // The same few Host values arrive again and again: remember the answer for the exact header text.
  const known = new Map<string, boolean>();
  return (req) => {
    const header = req.headers.host;
    if (header === undefined) return;
    let ok = known.get(header);
    if (ok === undefined) {
      ok = allowed.has(hostName(header));
      if (known.size < 256) known.set(header, ok);
    }
    if (!ok) {
      throw new HttpError(
        403,
        `The Host "${header}" is not a name of this emulator (it answers ${[...allowed].join(', ')}); a web page may not reach it under a foreign name. ` +
          `To use this name, start it with --allow-host ${hostName(header)} (option allowHosts).`,
      );
    }
  };
}
