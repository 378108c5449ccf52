import express, { type Router } from 'express';
import type { EmuContext } from '../../context.js';
import { HttpError } from '../../server/errors.js';
import { compileSchema, describeSchemaError } from '../../server/json-schema.js';
import { pathInt } from '../../server/params.js';
import { allIntegrations, presentIntegration, reportNetworkServer, requireAnyIntegration, type Integration, type NetworkServerReport } from './integrations.js';
import { networkServerReportSchema } from './schemas.js';

/** An integration as the control plane shows it: its tenant too, never the API key. */
const presentForControl = (i: Integration) => ({ tenantId: i.tenantId, ...presentIntegration(i, true) });

/**
 * `/_emu/lorawan`: the network server is not there, so a user says what it would report.
 * - `GET /_emu/lorawan/integrations[/{id}]`: every tenant's integrations with state, error and devices.
 * - `PATCH /_emu/lorawan/integrations/{id}` `{ state?, error?, status?, devices? }`: sets them.
 */
export function lorawanControlRouter(ctx: EmuContext): Router {
  const router = express.Router();
  router.get('/lorawan/integrations', (_req, res) => {
    res.json(allIntegrations(ctx).map(presentForControl));
  });
  router.get('/lorawan/integrations/:id', (req, res) => {
    const id = pathInt(req, 'id');
    res.json(presentForControl(requireAnyIntegration(ctx, id)));
  });
  router.patch('/lorawan/integrations/:id', express.json({ limit: ctx.config.bodyLimit, type: () => true }), async (req, res) => {
    const id = pathInt(req, 'id');
    if (req.body === undefined) throw new HttpError(400, 'The request body is missing: send { "state", "error", "status", "devices" } (any of them).');
    const check = compileSchema(networkServerReportSchema);
    if (!check(req.body)) throw new HttpError(400, `Invalid request body: ${describeSchemaError(check.errors![0])}.`);
    res.json(presentForControl(await reportNetworkServer(ctx, id, req.body as NetworkServerReport)));
  });
  return router;
}
