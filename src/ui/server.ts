import express, { type Request, type Response, type Router } from 'express';
import type { EmuContext } from '../context.js';
import { deviceConnections } from '../gateway/index.js';
import { badRequest, notFound } from '../server/errors.js';
import { queryString } from '../server/params.js';
import { findEndpoint, isMetadataObject, writeMetadata } from '../services/epr/endpoints.js';
import { loadUiAssets, type Asset, type UiAssets } from './assets.js';
import { deviceRoomOf, type DeviceRequest, type DeviceTarget } from './devices.js';
import { onlineEndpoints } from './online.js';

const METADATA_KEY = /^[a-zA-Z0-9_]+$/;

const IMMUTABLE = 'public, max-age=31536000, immutable';

function send(req: Request, res: Response, file: Asset, cacheControl: string): void {
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  res.set({ 'Content-Type': file.type, 'Cache-Control': cacheControl, Vary: 'Accept-Encoding', 'X-Content-Type-Options': 'nosniff' });
  if (gzip) res.set('Content-Encoding', 'gzip');
  res.end(req.method === 'HEAD' ? undefined : gzip ? file.gzip : file.body);
}

const jsonBody = (ctx: EmuContext) => express.json({ limit: ctx.config.bodyLimit, strict: false, type: () => true });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body of `POST /_emu/devices`, checked field by field (the simulator checks rules and the telemetry spec). */
function deviceRequest(body: unknown): DeviceRequest {
  if (!isObject(body)) throw badRequest('The body must be a JSON object: { "endpointId", "tenantId"?, "rules"?, "telemetry"?, "metadata"?, "config"?, "software"? }.');
  const known = ['endpointId', 'tenantId', 'rules', 'telemetry', 'metadata', 'config', 'software'];
  const unknown = Object.keys(body).find((k) => !known.includes(k));
  if (unknown) throw badRequest(`Unknown field "${unknown}"; the fields are ${known.join(', ')}.`);
  if (typeof body.endpointId !== 'string' || body.endpointId === '') throw badRequest('endpointId (the endpoint the device acts as) is required.');
  if (body.tenantId !== undefined && typeof body.tenantId !== 'string') throw badRequest('tenantId must be a string.');
  for (const field of ['rules', 'metadata'] as const) if (body[field] !== undefined && !isObject(body[field])) throw badRequest(`${field} must be a JSON object.`);
  const telemetry = body.telemetry;
  if (telemetry !== undefined && (!isObject(telemetry) || typeof telemetry.sample !== 'string')) {
    throw badRequest('telemetry must be { "sample": "<spec like temp=20..25>", "intervalMs"?: <number> }.');
  }
  for (const field of ['config', 'software'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'boolean' && body[field] !== 'reject') throw badRequest(`${field} must be true, false or "reject".`);
  }
  return body as unknown as DeviceRequest;
}

/**
 * The dashboard and what it needs beside the control plane: mounted at `/_emu`.
 * - `GET /_emu/ui`: the page (no-cache); `GET /_emu/ui/assets/<hash>/...`: its modules (cached for good).
 * - `GET /_emu/connections`: the endpoints' connection state (online, last seen).
 * - `GET /_emu/connections/online`: the endpoints online now, a page at a time (see online.ts).
 * - `GET|POST /_emu/devices`, `DELETE /_emu/devices/{endpointId}`: simulated devices in the emulator's process.
 * - `PUT /_emu/endpoints/{endpointId}/metadata`: replaces an endpoint's metadata.
 */
export function uiRouter(ctx: EmuContext, target: () => DeviceTarget): Router {
  const router = express.Router();
  // Read when first asked, not at start: an emulator nobody opens the dashboard of starts as fast as before.
  let loaded: UiAssets | undefined;
  const assets = () => (loaded ??= loadUiAssets());
  const room = deviceRoomOf(ctx);
  router.get('/ui', (req, res) => {
    // The page's relative URLs need the trailing slash.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, '/_emu/ui/');
    send(req, res, assets().index, 'no-cache');
  });
  router.get('/ui/assets/:hash/*file', (req, res) => {
    const name = ([] as string[]).concat(req.params.file as string | string[]).join('/');
    const file = req.params.hash === assets().hash ? assets().files.get(name) : undefined;
    if (!file) throw notFound(`The dashboard has no file ${name} (version ${req.params.hash}); reload /_emu/ui/.`);
    send(req, res, file, IMMUTABLE);
  });
  router.get('/connections', (_req, res) => {
    res.json(deviceConnections(ctx));
  });
  router.get('/connections/online', (req, res) => {
    res.json(onlineEndpoints(ctx, req));
  });
  router.get('/devices', (_req, res) => {
    res.json(room.list());
  });
  router.post('/devices', jsonBody(ctx), async (req, res) => {
    const info = await room.start(deviceRequest(req.body), target());
    res.status(201).json(info);
  });
  router.delete('/devices/:endpointId', async (req, res) => {
    await room.stop(req.params.endpointId as string);
    res.status(204).end();
  });
  // The platform's REST has no metadata write (devices write it over KP1 epmx): the dashboard writes it here, as `epmx update` does.
  router.put('/endpoints/:endpointId/metadata', jsonBody(ctx), async (req, res) => {
    const tenantId = queryString(req, 'tenantId') ?? ctx.defaultTenantId();
    const endpoint = findEndpoint(ctx, tenantId, req.params.endpointId as string);
    if (!endpoint) throw notFound(`The tenant ${tenantId} has no endpoint "${req.params.endpointId}".`);
    const metadata = req.body as unknown;
    if (!isMetadataObject(metadata)) throw badRequest('The body must be the metadata: a JSON object.');
    const badKey = Object.keys(metadata).find((key) => !METADATA_KEY.test(key));
    if (badKey !== undefined) throw badRequest(`The metadata key "${badKey}" may hold only letters, digits and "_" (as KP1 epmx requires).`);
    const written = await writeMetadata(ctx, endpoint, metadata, false);
    res.json({ endpointId: written.endpointId, metadata: written.metadata, metadataUpdatedDate: written.metadataUpdatedDate });
  });
  return router;
}
