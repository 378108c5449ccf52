import { Router } from 'express';
import type { EmuContext } from '../context.js';
import { authorityOf } from '../tls/authority.js';

/** `GET /_emu/tls/ca.pem`: the local authority's root certificate, open like health (it is public). */
export function tlsRouter(ctx: EmuContext): Router {
  return Router().get('/ca.pem', async (_req, res) => {
    res
      .type('application/x-pem-file')
      .set('Content-Disposition', 'inline; filename="ca.pem"')
      .send((await authorityOf(ctx)).certificate);
  });
}
