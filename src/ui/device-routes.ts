import { METADATA_KEY_PATTERN } from '../services/epr/schemas.js';
import type { JsonSchema, Route } from '../contract.js';
import { notFound } from '../server/errors.js';
import { queryString } from '../server/params.js';
import { checkPreconditions, etagOf } from '../server/conditional.js';
import { ENDPOINTS, findEndpoint, writeMetadata } from '../services/epr/endpoints.js';
import { deviceRoomOf, type DeviceRequest, type DeviceTarget } from './devices.js';

const replyMode: JsonSchema = { enum: [true, false, 'reject'] };

/** The body of `POST /_emu/devices` (the simulator checks the rules and the telemetry sample). */
const deviceRequestSchema: JsonSchema = {
  type: 'object',
  required: ['endpointId'],
  additionalProperties: false,
  properties: {
    endpointId: { type: 'string', minLength: 1, description: 'the endpoint the device acts as' },
    tenantId: { type: 'string' },
    rules: { type: 'object' },
    telemetry: {
      type: 'object',
      required: ['sample'],
      properties: {
        sample: { type: 'string', description: 'a spec like temp=20..25' },
        intervalMs: { type: 'number' },
      },
    },
    metadata: { type: 'object' },
    config: replyMode,
    software: replyMode,
  },
};

/** The body of `PUT /_emu/endpoints/{endpointId}/metadata`: keys as KP1 epmx allows them. */
const metadataSchema: JsonSchema = { type: 'object', propertyNames: { pattern: METADATA_KEY_PATTERN } };

/**
 * The dashboard's device API, mounted at `/_emu`:
 * - `GET|POST /_emu/devices`, `DELETE /_emu/devices/{endpointId}`: simulated devices in the emulator's process.
 * - `PUT /_emu/endpoints/{endpointId}/metadata`: replaces an endpoint's metadata.
 */
export function deviceRoutes(target: () => DeviceTarget): Route[] {
  return [
    {
      method: 'GET',
      path: '/devices',
      scope: null,
      summary: 'The simulated devices',
      handler: (req, res) => res.json(deviceRoomOf(req.ctx).list()),
    },
    {
      method: 'POST',
      path: '/devices',
      scope: null,
      summary: 'Start a simulated device',
      bodySchema: deviceRequestSchema,
      successStatus: 201,
      handler: async (req, res) =>
        res.status(201).json(await deviceRoomOf(req.ctx).start(req.body as DeviceRequest, target())),
    },
    {
      method: 'DELETE',
      path: '/devices/{endpointId}',
      scope: null,
      summary: 'Stop a simulated device',
      successStatus: 204,
      handler: async (req, res) => {
        await deviceRoomOf(req.ctx).stop(req.params.endpointId as string);
        res.status(204).end();
      },
    },
    {
      // The platform's REST has no metadata write (devices write it over KP1 epmx): the dashboard writes it here, as
      // `epmx update` does.
      method: 'PUT',
      path: '/endpoints/{endpointId}/metadata',
      scope: null,
      summary: "Replace an endpoint's metadata",
      query: [{ name: 'tenantId', description: 'default: the default tenant' }],
      bodySchema: metadataSchema,
      handler: async (req, res) => {
        const ctx = req.ctx;
        const tenantId = queryString(req, 'tenantId') ?? ctx.defaultTenantId();
        const endpoint = findEndpoint(ctx, tenantId, req.params.endpointId as string);
        if (!endpoint) throw notFound(`The tenant ${tenantId} has no endpoint "${req.params.endpointId}".`);
        // If-Match with the ETag of the endpoint's GET: a save over a newer record is 412, nothing written.
        checkPreconditions(req, { revision: ENDPOINTS.rev(ctx, endpoint.endpointId) });
        const written = await writeMetadata(ctx, endpoint, req.body as Record<string, unknown>, false);
        res.setHeader('ETag', etagOf(ENDPOINTS.rev(ctx, written.endpointId)));
        res.json({
          endpointId: written.endpointId,
          metadata: written.metadata,
          metadataUpdatedDate: written.metadataUpdatedDate,
        });
      },
    },
  ];
}
