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

/** A `Host` header read as a URL authority (RFC 3986): `host` with its port (as links carry it), `name` without. */
interface Authority {
  host: string;
  name: string;
}

/**
 * `Host` parsed as the authority of `http://<Host>/`, or why it is not one. User info (`localhost:8080@evil.example`
 * names the host evil.example) and anything past the authority are refused rather than guessed at.
 */
function parseAuthority(header: string): Authority | string {
  if (header.includes('@')) return 'it has user info (user@host); a Host is host[:port]';
  if (/[/?#\\\s]/.test(header)) return 'it is not host[:port]';
  let url: URL;
  try {
    url = new URL(`http://${header}/`);
  } catch {
    return 'it is not host[:port] (a name or address, and a port up to 65535)';
  }
  if (url.username || url.password || url.pathname !== '/' || url.hostname === '') return 'it is not host[:port]';
  return { host: url.host, name: url.hostname };
}

/** Parsed `Host` values by their text: the same few arrive again and again. */
const parsed = new Map<string, Authority | string>();
const MAX_REMEMBERED = 256;

function authorityOf(header: string): Authority | string {
  let authority = parsed.get(header);
  if (authority === undefined) {
    authority = parseAuthority(header);
    if (parsed.size < MAX_REMEMBERED) parsed.set(header, authority);
  }
  return authority;
}

/**
 * The `host[:port]` the caller used to reach the emulator, as parsed from `Host` (checked on arrival, see
 * `hostCheck`): links and `Location` are built from it, never from the raw header. Without a `Host` (HTTP/1.0), the
 * address the request came in on.
 */
export function requestHost(req: Request): string {
  const authority = requestAuthority(req);
  if (authority) return authority.host;
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/** The name in the request's `Host` (a URL's `hostname`: IPv6 in brackets), or undefined without a `Host`. */
export const requestHostName = (req: Request): string | undefined => requestAuthority(req)?.name;

/** The request's `Host` as parsed, or undefined without one (a malformed one was refused on arrival). */
function requestAuthority(req: Request): Authority | undefined {
  const header = req.headers.host;
  const authority = header === undefined ? undefined : authorityOf(header);
  return typeof authority === 'object' ? authority : undefined;
}

/** `{scheme}://{host[:port]}` of the request, for absolute links. */
export const requestOrigin = (req: Request) => `${req.protocol}://${requestHost(req)}`;

/**
 * Every request's `Host` is a URL authority (else 400), and a name of the emulator (DNS rebinding: a web page whose
 * name resolves to 127.0.0.1 must not reach it, 403). Bound to a loopback address: `localhost`, `127.0.0.1`,
 * `[::1]` and the `--allow-host` names. Bound to another address: any name, unless `--allow-host` names are given.
 */
export function hostCheck(config: Pick<EmulatorConfig, 'host' | 'allowHosts'>): (req: Request) => void {
  const anyName = !isLoopback(config.host) && config.allowHosts.length === 0;
  const allowed = new Set([
    ...LOOPBACK_NAMES,
    ...config.allowHosts.map((h) => {
      const authority = authorityOf(/:.*:/.test(h) && !h.startsWith('[') ? `[${h}]` : h);
      return typeof authority === 'object' ? authority.name : h.toLowerCase();
    }),
  ]);
  return (req) => {
    const header = req.headers.host;
    if (header === undefined) return;
    const authority = authorityOf(header);
    if (typeof authority === 'string')
      throw new HttpError(400, `The Host header "${header}" is refused: ${authority}.`);
    if (anyName || allowed.has(authority.name)) return;
    throw new HttpError(
      403,
      `The Host "${header}" is not a name of this emulator (it answers ${[...allowed].join(', ')}); a web ` +
        `page may not reach it under a foreign name. ` +
        `To use this name, start it with --allow-host ${authority.name} (option allowHosts).`,
    );
  };
}
