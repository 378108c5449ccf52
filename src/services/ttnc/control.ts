import type { Router } from 'express';
import type { EmuContext } from '../../context.js';
import type { Route } from '../../contract.js';
import { pathInt } from '../../server/params.js';
import { routeTableRouter } from '../../server/router.js';
import {
  allIntegrations,
  presentIntegration,
  reportNetworkServer,
  requireAnyIntegration,
  type Integration,
  type NetworkServerReport,
} from './integrations.js';
import { networkServerReportSchema } from './schemas.js';

/** An integration as the control plane shows it: its tenant too, never the API key. */
const presentForControl = (i: Integration) => ({ tenantId: i.tenantId, ...presentIntegration(i, true) });

/**
 * `/_emu/lorawan`: the network server is not there, so a user says what it would report.
 * - `GET /_emu/lorawan/integrations[/{id}]`: every tenant's integrations with state, error and devices.
 * - `PATCH /_emu/lorawan/integrations/{id}` `{ state?, error?, status?, devices? }`: sets them.
 */
const lorawanControlRoutes: Route[] = [
  {
    method: 'GET',
    path: '/lorawan/integrations',
    scope: null,
    summary: "Every tenant's LoRaWAN integrations",
    handler: (req, res) => res.json(allIntegrations(req.ctx).map(presentForControl)),
  },
  {
    method: 'GET',
    path: '/lorawan/integrations/{id}',
    scope: null,
    summary: 'One LoRaWAN integration',
    handler: (req, res) => {
      const id = pathInt(req, 'id');
      res.json(presentForControl(requireAnyIntegration(req.ctx, id)));
    },
  },
  {
    method: 'PATCH',
    path: '/lorawan/integrations/{id}',
    scope: null,
    summary: 'Say what the network server reports',
    bodySchema: networkServerReportSchema,
    handler: async (req, res) => {
      const id = pathInt(req, 'id');
      res.json(presentForControl(await reportNetworkServer(req.ctx, id, req.body as NetworkServerReport)));
    },
  },
];

export const lorawanControlRouter = (ctx: EmuContext): Router => routeTableRouter(ctx, lorawanControlRoutes);
