import { isUtf8 } from 'node:buffer';
import type { EmuContext } from '../context.js';
import { checkJsonDepth, StoreValueError, StoreWriteError } from '../store/index.js';
import { HttpError } from '../server/errors.js';
import { findVersion } from '../services/app-manager/applications.js';
import { activateToken, findEndpointOfVersion, findEndpoint, type Endpoint } from '../services/epr/endpoints.js';
import { kp1Error, matchResource, type Kp1Extension, type Kp1Reply, type Kp1Resource } from './extension.js';

export type { Kp1Reply };
import { extensions } from './extensions/index.js';
import { hasDeviceFaults, journalKp1, underDeviceFault } from './faults.js';
import { Kp1PathError, parseKp1Path } from './topics.js';

const byName = new Map<string, Kp1Extension>(extensions.map((e) => [e.name, e]));

function failure(statusCode: number, reasonPhrase: string, extra: Partial<Kp1Reply> = {}): Kp1Reply {
  return { ...extra, ok: false, statusCode, payload: { statusCode, reasonPhrase } };
}

function resolveResource(
  extension: Kp1Extension,
  levels: string[],
): { resource: Kp1Resource; params: Record<string, string> } {
  for (const resource of extension.resources) {
    const params = matchResource(resource, levels);
    if (params) return { resource, params };
  }
  const known = extension.resources.map((r) => (r.path === '' ? '(none)' : r.path)).join(', ');
  throw kp1Error(404, `Extension ${extension.name} has no resource "${levels.join('/')}"; its resources: ${known}.`);
}

function resolveEndpoint(ctx: EmuContext, appVersionName: string, token: string): Endpoint {
  const version = findVersion(ctx, appVersionName);
  if (!version) {
    throw kp1Error(404, `There is no application version "${appVersionName}" (the second level of the topic).`);
  }
  const endpoint = findEndpointOfVersion(ctx, version, token);
  if (!endpoint) {
    throw kp1Error(
      401,
      `The endpoint token "${token}" is not registered in the application of version ${appVersionName}. ` +
        `Register the endpoint first (POST /epr/api/v1/endpoints).`,
    );
  }
  if (endpoint.appVersion.name !== appVersionName) {
    throw kp1Error(
      403,
      `The endpoint token "${token}" belongs to application version ${endpoint.appVersion.name}, not ` +
        `${appVersionName}: use kp1/${endpoint.appVersion.name}/...`,
    );
  }
  return endpoint;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const shown = text.length > 80 ? `${text.slice(0, 80)}...` : text;
    throw kp1Error(400, `The payload is not valid JSON (${(err as Error).message}): ${shown}`);
  }
  try {
    checkJsonDepth(value, 'the payload');
  } catch (err) {
    throw kp1Error(400, (err as Error).message);
  }
  return value;
}

/**
 * The first successful request with a token moves it from Inactive to Active (spec 2, States). Nearly every request
 * finds it Active: then there is nothing to wait for (no promise, no turn of the microtask queue).
 */
function activate(ctx: EmuContext, endpoint: Endpoint): Promise<void> | undefined {
  // Re-read: the handler may have replaced the record (metadata) since the token was looked up.
  const current = findEndpoint(ctx, endpoint.tenantId, endpoint.endpointId);
  return current && current.tokenStatus !== 'Active' ? activateToken(ctx, current) : undefined;
}

/**
 * Handles one KP1 request, from MQTT or HTTP: the device's fault (if one is set) first, then the message, then
 * its journal entry. Never throws: every failure is an error reply a firmware developer can read.
 */
export async function handleKp1(
  ctx: EmuContext,
  path: string,
  raw: Buffer,
  transport: 'mqtt' | 'http',
  resolved?: (endpoint: Endpoint) => void,
): Promise<Kp1Reply> {
  const started = performance.now();
  let reply: Kp1Reply;
  let endpoint: Endpoint | undefined;
  if (hasDeviceFaults(ctx)) {
    ({ reply, endpoint } = await underDeviceFault(ctx, path, () => handleMessage(ctx, path, raw, transport, resolved)));
  } else reply = await handleMessage(ctx, path, raw, transport, resolved);
  journalKp1(ctx, { topic: path, transport, status: reply.statusCode, endpoint: reply.endpoint ?? endpoint, started });
  return reply;
}

/**
 * Topic grammar, token lookup and activation, the extension's resource handler, and the reply. `resolved` hears of
 * the endpoint as soon as the token is known, before the handler runs (pushes it causes then reach the sender).
 */
async function handleMessage(
  ctx: EmuContext,
  path: string,
  raw: Buffer,
  transport: 'mqtt' | 'http',
  resolved?: (endpoint: Endpoint) => void,
): Promise<Kp1Reply> {
  let parsed;
  try {
    parsed = parseKp1Path(path);
  } catch (err) {
    if (err instanceof Kp1PathError) return failure(400, err.message, { requestId: err.requestId });
    throw err;
  }
  const { appVersionName, token, resource: levels, requestId } = parsed;
  let endpoint: Endpoint | undefined;
  let resourceKey: string | undefined;
  try {
    const extension = byName.get(parsed.extension);
    if (!extension) {
      throw kp1Error(
        404,
        `Unknown extension "${parsed.extension}"; this emulator speaks ${[...byName.keys()].join(', ')}.`,
      );
    }
    endpoint = resolveEndpoint(ctx, appVersionName, token);
    resolved?.(endpoint);
    const { resource, params } = resolveResource(extension, levels);
    resourceKey = levels.length === 0 ? extension.name : `${extension.name}/${levels.join('/')}`;
    // 1/KP: payloads are UTF-8; bytes that are not are refused rather than silently replaced.
    if (!isUtf8(raw)) throw kp1Error(400, 'The payload is not valid UTF-8 (1/KP: payloads are UTF-8 encoded).');
    const payload = resource.payload === 'raw' ? undefined : parseJson(raw);
    const result = await resource.handle({ ctx, endpoint, params, payload, raw, requestId, transport });
    const activating = activate(ctx, endpoint);
    if (activating) await activating;
    return {
      ok: true,
      statusCode: 200,
      // Spec 4: a success without a payload has a zero-length one (MQTT) or an empty body (HTTP).
      payload: result.payload,
      requestId,
      endpoint,
      resourceKey,
      observe: result.observe,
    };
  } catch (err) {
    if (err instanceof HttpError) return failure(err.status, err.message, { requestId, endpoint, resourceKey });
    if (err instanceof StoreValueError || err instanceof StoreWriteError)
      return failure(err.status, err.message, { requestId, endpoint, resourceKey });
    ctx.log(`KP1 ${path}: ${(err as Error)?.stack ?? String(err)}`);
    return failure(
      500,
      `Internal error of the emulator while handling ${path}: ${(err as Error)?.message ?? String(err)}`,
      { requestId, endpoint },
    );
  }
}
