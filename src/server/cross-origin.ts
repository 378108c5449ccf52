import type { Request, Response } from 'express';
import { normalizedOrigin, type EmulatorConfig } from '../config.js';
import { HttpError } from './errors.js';
import { isLoopback } from './host-check.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** What web apps send besides the CORS-safelisted headers: bearer tokens, JSON bodies, conditional requests. */
const ALLOW_HEADERS =
  'Authorization, Content-Type, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, X-Auth-Token';
/** What they read besides the safelisted response headers. */
const EXPOSE_HEADERS = 'ETag, Location, Last-Modified, Retry-After, WWW-Authenticate';
const PREFLIGHT_MAX_AGE = '600';
/** Case-insensitive, as express mounts `/_emu`. */
const CONTROL_PLANE = /^\/_emu(?:\/|$)/i;

/**
 * Which origins may call the emulator from a browser: the emulator's own (the `Host` the request came to), pages on
 * this machine (`http(s)://localhost:*`, `127.0.0.1:*`, `[::1]:*`, and `null`, a page opened from a file), and the
 * `--allow-origin` ones. Answers are remembered per (origin, host) text: the same few arrive again and again.
 */
export function originPolicy(config: Pick<EmulatorConfig, 'allowOrigins'>) {
  const named = new Set(config.allowOrigins);
  const known = new Map<string, boolean>();
  const decide = (origin: string, host: string | undefined): boolean => {
    if (origin === 'null' || named.has(origin)) return true;
    const normalized = normalizedOrigin(origin);
    if (normalized === undefined) return false;
    const url = new URL(normalized);
    return isLoopback(url.hostname) || named.has(normalized) || (host !== undefined && url.host === host.toLowerCase());
  };
  return (origin: string, host: string | undefined): boolean => {
    const key = `${origin} ${host ?? ''}`;
    let allowed = known.get(key);
    if (allowed === undefined) {
      allowed = decide(origin, host);
      if (known.size < 256) known.set(key, allowed);
    }
    return allowed;
  };
}

const refused = (origin: string, method: string) =>
  new HttpError(
    403,
    `Cross-origin ${method} refused: a web page at ${origin} may not change this emulator. Pages on this ` +
      `machine (http://localhost:*, http://127.0.0.1:*, ` +
      "http://[::1]:*, a file) and the emulator's own pages may; to allow this one, start with --allow-origin " +
      `${origin} (PLATFORM_EMU_ALLOW_ORIGIN, option allowOrigins).`,
  );

/**
 * Browsers' cross-origin rules for every route. A write (POST, PUT, PATCH, DELETE) with an `Origin` the policy does
 * not allow is 403 before anything runs, whatever its content type (a `text/plain` POST needs no preflight). Allowed
 * origins get CORS answers everywhere but the control plane (`/_emu` grants none: its guard accepts only the
 * emulator's own origin). Returns true when it answered (a preflight).
 */
export function crossOrigin(config: Pick<EmulatorConfig, 'allowOrigins'>) {
  const allowed = originPolicy(config);
  return (req: Request, res: Response): boolean => {
    const origin = req.headers.origin;
    // The control plane's guard decides there (its own origin only, for writes), and no CORS is granted.
    if (origin === undefined || CONTROL_PLANE.test(req.path)) return false;
    const ok = allowed(origin, req.headers.host);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!ok) {
      if (preflight) throw refused(origin, String(req.headers['access-control-request-method']));
      if (!SAFE_METHODS.has(req.method)) throw refused(origin, req.method);
      return false;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
    if (!preflight) {
      res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
      return false;
    }
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
    res.status(204).end();
    return true;
  };
}
