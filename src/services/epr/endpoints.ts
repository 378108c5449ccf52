import { randomFillSync, randomUUID } from 'node:crypto';
import { runtimeOf, type EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import { ENDPOINT_CHANGED } from '../../server/events.js';
import { collection, isPlainObject } from '../../store/index.js';
import { findTenantVersion, findVersion, type AppVersion } from '../app-manager/applications.js';
import type { FromSchema } from '../../contract.js';
import type { endpointRecord, Registration } from './schemas.js';

export const ENDPOINTS = collection<Endpoint>('endpoints')
  .index('token', (e) => tokenKey(e.appName, e.token))
  .index('app', (e) => e.appName);

export type Endpoint = FromSchema<typeof endpointRecord>;
export type TokenStatus = Endpoint['tokenStatus'];

const tokenKey = (appName: string, token: string) => `${appName}\u0000${token}`;

/** The tenant's endpoint; another tenant's is as absent as one that does not exist. */
export function findEndpoint(ctx: EmuContext, tenantId: string, endpointId: string): Endpoint | undefined {
  const endpoint = ENDPOINTS.get(ctx, endpointId);
  return endpoint?.tenantId === tenantId ? endpoint : undefined;
}

/** The tenant's endpoint, or the 404 every service answers for an endpoint it cannot see. */
export function requireEndpoint(ctx: EmuContext, tenantId: string, endpointId: string): Endpoint {
  const endpoint = findEndpoint(ctx, tenantId, endpointId);
  if (!endpoint) throw notFound(`There is no endpoint ${endpointId}.`);
  return endpoint;
}

/** What the device gateway resolves a KP1 topic's `<appVersionName>/<token>` to. */
export function findEndpointByToken(ctx: EmuContext, appVersionName: string, token: string): Endpoint | undefined {
  const version = findVersion(ctx, appVersionName);
  return version && findEndpointOfVersion(ctx, version, token);
}

/** The endpoint of the version's application with the token (the version already looked up). */
export function findEndpointOfVersion(ctx: EmuContext, version: AppVersion, token: string): Endpoint | undefined {
  return ENDPOINTS.lookup(ctx, 'token', tokenKey(version.appName, token))[0];
}

export function endpointsOfApplication(ctx: EmuContext, appName: string): Endpoint[] {
  return ENDPOINTS.lookup(ctx, 'app', appName);
}

/** The order of `GET /endpoints`: registration time, then endpointId. */
export const listingOrder = (a: Endpoint, b: Endpoint) =>
  a.createdDate.localeCompare(b.createdDate) || a.endpointId.localeCompare(b.endpointId);

/**
 * The tenant's endpoints in listing order (only those of `appName` when given), sorted once per change of the
 * collection rather than on every list request (10,000 endpoints cost a sort of 10,000 per request otherwise).
 * Callers must not modify it.
 */
export function endpointsInListingOrder(ctx: EmuContext, tenantId: string, appName?: string): readonly Endpoint[] {
  const cache = runtimeOf(
    ctx,
    'epr:listing-order',
    () => new Map<string, { version: string; endpoints: readonly Endpoint[] }>(),
  );
  // The count guards the one case where a revision repeats: a replaced state without endpoints (revision 0 again).
  const version = `${ENDPOINTS.rev(ctx)}:${ENDPOINTS.count(ctx)}`;
  const key = appName === undefined ? tenantId : `${tenantId}\u0000${appName}`;
  const hit = cache.get(key);
  if (hit?.version === version) return hit.endpoints;
  const endpoints =
    appName === undefined
      ? [...ENDPOINTS.values(ctx)].filter((e) => e.tenantId === tenantId).sort(listingOrder)
      : endpointsInListingOrder(ctx, tenantId).filter((e) => e.appName === appName);
  cache.set(key, { version, endpoints });
  return endpoints;
}

/** Metadata is a JSON object. Kept for the dashboard's API until its checks move into route body schemas. */
export const isMetadataObject = isPlainObject;

export type { Registration };

const TOKEN_BYTES = 12;
/**
 * Random bytes for tokens, refilled 4 KiB at a time (as `randomUUID` buffers its own): one call into OpenSSL per 341
 * tokens.
 */
const tokenEntropy = Buffer.alloc(TOKEN_BYTES * 341);
let tokenEntropyUsed = tokenEntropy.length;

function generatedToken(): string {
  if (tokenEntropyUsed + TOKEN_BYTES > tokenEntropy.length) {
    randomFillSync(tokenEntropy);
    tokenEntropyUsed = 0;
  }
  const token = tokenEntropy
    .toString('base64url', tokenEntropyUsed, tokenEntropyUsed + TOKEN_BYTES)
    .replace(/[-_]/g, 'x');
  tokenEntropyUsed += TOKEN_BYTES;
  return token;
}

/** Builds a new endpoint record after the rules of `POST /endpoints` the schema cannot say; throws 400/409. */
export function newEndpoint(ctx: EmuContext, tenantId: string, input: Registration, now: string): Endpoint {
  const version = findTenantVersion(ctx, tenantId, input.appVersion.name);
  if (!version)
    throw badRequest(`Invalid application version name: there is no application version ${input.appVersion.name}.`);
  const endpointId = input.endpointId ?? randomUUID();
  if (ENDPOINTS.has(ctx, endpointId)) throw conflict(`An endpoint with endpointId ${endpointId} exists already.`);
  let token = input.endpointToken;
  if (token === undefined) {
    do token = generatedToken();
    while (ENDPOINTS.lookup(ctx, 'token', tokenKey(version.appName, token)).length > 0);
  } else if (ENDPOINTS.lookup(ctx, 'token', tokenKey(version.appName, token)).length > 0) {
    throw conflict(`The endpointToken is already used by another endpoint of application ${version.appName}.`);
  }
  return {
    tenantId,
    endpointId,
    appName: version.appName,
    appVersion: { name: version.name, registeredDate: now },
    createdDate: now,
    updatedDate: now,
    token,
    tokenStatus: 'Inactive',
    metadata: input.metadata ?? {},
    ...(input.metadata !== undefined ? { metadataUpdatedDate: now } : {}),
  };
}

export async function registerEndpoint(ctx: EmuContext, tenantId: string, input: Registration): Promise<Endpoint> {
  const endpoint = newEndpoint(ctx, tenantId, input, ctx.clock.nowIso());
  await ENDPOINTS.put(ctx, endpoint.endpointId, endpoint);
  endpointChanged(ctx, endpoint, 'registered');
  return endpoint;
}

/** The first successful use of a token moves it from Inactive to Active (spec 2); a no-op afterwards. */
export async function activateToken(ctx: EmuContext, endpoint: Endpoint): Promise<void> {
  if (endpoint.tokenStatus === 'Active') return;
  await ENDPOINTS.put(ctx, endpoint.endpointId, {
    ...endpoint,
    tokenStatus: 'Active',
    updatedDate: ctx.clock.nowIso(),
  });
  endpointChanged(ctx, endpoint, 'activated');
}

/** Replaces (`merge: false`) or merges into an endpoint's metadata; `null` values are kept as JSON null. */
export async function writeMetadata(
  ctx: EmuContext,
  endpoint: Endpoint,
  metadata: Record<string, unknown>,
  merge: boolean,
): Promise<Endpoint> {
  const now = ctx.clock.nowIso();
  const next: Endpoint = {
    ...endpoint,
    metadata: merge ? { ...endpoint.metadata, ...metadata } : { ...metadata },
    metadataUpdatedDate: now,
    updatedDate: now,
  };
  await ENDPOINTS.put(ctx, endpoint.endpointId, next);
  endpointChanged(ctx, endpoint, 'metadata');
  return next;
}

/** For the control plane's event stream (`GET /_emu/events`). */
function endpointChanged(ctx: EmuContext, endpoint: Endpoint, change: 'registered' | 'activated' | 'metadata'): void {
  ctx.events.emit(ENDPOINT_CHANGED, { endpointId: endpoint.endpointId, tenantId: endpoint.tenantId, change });
}

export async function deleteMetadataKeys(ctx: EmuContext, endpoint: Endpoint, keys: string[]): Promise<Endpoint> {
  const metadata = { ...endpoint.metadata };
  for (const key of keys) delete metadata[key];
  return writeMetadata(ctx, endpoint, metadata, false);
}
