import type { Request } from 'express';
import type { EmuContext } from '../context.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * With no client registration to list redirect URIs, a code (or the browser after a logout) may only go to this
 * machine, the host the request was made on, or an `--allow-host` name: a link crafted elsewhere cannot send a
 * user's code to another site.
 */
export function redirectAllowed(req: Request, ctx: EmuContext, redirect: URL): boolean {
  const host = redirect.hostname.toLowerCase();
  return (
    LOOPBACK.has(host) ||
    host === req.hostname.toLowerCase() ||
    ctx.config.allowHosts.some((h) => h.toLowerCase() === host)
  );
}
