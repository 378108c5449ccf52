import { Router } from 'express';
import { realmPath } from '../auth/tokens.js';
import type { EmuContext } from '../context.js';
import { requestOrigin } from '../server/host-check.js';
import { services } from '../services/index.js';
import { findTenant } from '../services/tenant-manager/tenants.js';
import { VERSION } from '../version.js';

const tenantRealm = (ctx: EmuContext) => findTenant(ctx, ctx.defaultTenantId())?.realm_name ?? ctx.defaultTenantId();

/** `GET /_emu/openapi.json`, addressed to the host the caller used; its modules load with the first request for it. */
export function openApiRouter(ctx: EmuContext): Router {
  return Router().get('/', async (req, res) => {
    const { openApiDocument } = await import('../server/openapi.js');
    const base = requestOrigin(req);
    res.json(
      openApiDocument(services, {
        version: VERSION,
        serverUrl: base,
        tokenUrl: `${base}${realmPath(tenantRealm(ctx))}/protocol/openid-connect/token`,
      }),
    );
  });
}
