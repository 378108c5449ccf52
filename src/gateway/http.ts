import express, { type Router } from 'express';
import type { EmuContext } from '../context.js';
import { HttpError } from '../server/errors.js';
import { percentDecoded } from '../server/percent-decoding.js';
import { handleKp1 } from './dispatch.js';
import { sessionsOf } from './sessions.js';
import { KP1_ROOT } from './topics.js';

/**
 * The KP1 HTTP binding, mounted at `/kp1`: `POST /kp1/<appVersionName>/<extension>/<token>/<resource...>`.
 * The body is read as JSON whatever the Content-Type (the platform's request collection sends none, or
 * text/plain); an empty body is an empty payload. The reply payload is the body, the KP1 status the HTTP status.
 */
export function kp1HttpRouter(ctx: EmuContext): Router {
  const router = express.Router();
  router.use(express.raw({ limit: ctx.config.bodyLimit, type: () => true }));
  router.use(async (req, res) => {
    if (req.method !== 'POST') {
      throw new HttpError(405, `KP1 over HTTP takes POST only; got ${req.method} ${req.originalUrl.split('?')[0]}.`, {
        Allow: 'POST',
      });
    }
    const levels = percentDecoded(req.path.replace(/^\/+|\/+$/g, ''));
    if (levels === undefined) throw new HttpError(400, `The path ${req.originalUrl} is not correctly percent-encoded.`);
    const path = `${KP1_ROOT}/${levels}`;
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    req.journaledAsKp1 = true;
    const reply = await handleKp1(ctx, path, body, 'http');
    if (reply.dropped) {
      req.socket.destroy();
      return;
    }
    if (reply.endpoint) sessionsOf(ctx).seen(reply.endpoint.endpointId, 'http');
    if (reply.payload === undefined) res.status(reply.statusCode).end();
    else res.status(reply.statusCode).json(reply.payload);
  });
  return router;
}
