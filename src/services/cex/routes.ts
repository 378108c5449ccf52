import type { Request, Response } from 'express';
import { badRequest, notFound } from '../../server/errors.js';
import { locationOf } from '../../server/location.js';
import { pageParams, paginate } from '../../server/pagination.js';
import { pathInt, pathParam, queryList, queryString } from '../../server/params.js';
import type { QueryParam, Route } from '../../contract.js';
import { requireApplication } from '../app-manager/applications.js';
import { findEndpoint, requireEndpoint, type Endpoint } from '../epr/endpoints.js';
import {
  checkCommandType,
  commandsOfApplication,
  commandsOfEndpoint,
  deleteCommand,
  findCommand,
  invokeCommand,
  lastExecuted,
  presentCommand,
  type CommandRecord,
} from './commands.js';
import { commandPayloadOf, invocationOf } from './invocation.js';
import { untilSettled } from './wait.js';

function endpointOf(req: Request, endpointId = pathParam(req, 'endpointId')): Endpoint {
  return requireEndpoint(req.ctx, req.principal.tenantId, endpointId);
}

function commandTypeOf(req: Request): string {
  const commandType = pathParam(req, 'commandType');
  checkCommandType(commandType);
  return commandType;
}

function commandTypesOf(req: Request): string[] | undefined {
  const types = queryList(req, 'commandTypes');
  types?.forEach(checkCommandType);
  return types;
}

function commandOf(req: Request): CommandRecord {
  const commandType = commandTypeOf(req);
  const commandId = pathInt(req, 'commandId');
  const endpoint = endpointOf(req);
  const command = findCommand(req.ctx, endpoint, commandType, commandId);
  if (!command) throw notFound(`Endpoint ${endpoint.endpointId} has no command ${commandId} of type ${commandType}.`);
  return command;
}

/** Answers 200 with the device's payload once it reports a result, or 202 with `Location` when the wait runs out. */
async function invoke(req: Request, res: Response) {
  const commandType = commandTypeOf(req);
  const invocation = invocationOf(req);
  const payload = commandPayloadOf(req);
  const endpoint = endpointOf(req);
  const command = await invokeCommand(req.ctx, endpoint, commandType, payload, invocation);
  const outcome = await untilSettled(req.ctx, command, invocation.waitSeconds * 1000, res);
  if (outcome.kind === 'closed') return;
  const settled = outcome.kind === 'settled' ? outcome.command : undefined;
  if (settled?.status === 'EXECUTED') {
    if (settled.responsePayload === undefined) res.status(200).end();
    else res.status(200).json(settled.responsePayload);
    return;
  }
  res
    .status(202)
    .location(locationOf(req, 'endpoints', endpoint.endpointId, 'commands', commandType, command.commandId))
    .json(
      presentCommand(
        settled ?? findCommand(req.ctx, endpoint, commandType, command.commandId) ?? command,
        req.ctx.clock.nowMs(),
      ),
    );
}

function getOne(req: Request, res: Response) {
  res.json(presentCommand(commandOf(req), req.ctx.clock.nowMs()));
}

async function deleteOne(req: Request, res: Response) {
  await deleteCommand(req.ctx, commandOf(req));
  res.status(204).end();
}

/** One revision repeats the path values as required query parameters; they must agree. */
function checkRepeated(req: Request, name: string): void {
  const repeated = queryString(req, name);
  if (repeated !== undefined && repeated !== pathParam(req, name)) {
    throw badRequest(`Query parameter ${name} (${repeated}) does not match the path (${pathParam(req, name)}).`);
  }
}

function last(req: Request, res: Response) {
  const commandType = commandTypeOf(req);
  checkRepeated(req, 'endpointId');
  checkRepeated(req, 'commandType');
  const endpoint = endpointOf(req);
  const command = lastExecuted(req.ctx, endpoint, commandType);
  if (!command) throw notFound(`Endpoint ${endpoint.endpointId} has no executed command of type ${commandType}.`);
  res.json(presentCommand(command, req.ctx.clock.nowMs()));
}

const descriptor = (req: Request, endpointId: string, commands: CommandRecord[]) => {
  const now = req.ctx.clock.nowMs();
  return { endpointId, commands: commands.map((c) => presentCommand(c, now)) };
};

/**
 * `endpointId` (required in both revisions), and `commandTypes`: required by the later revision, optional in the first
 * (`--compat cex=1`), where without it every type is listed.
 */
function listByEndpoints(req: Request, res: Response) {
  const ids = queryList(req, 'endpointId');
  if (!ids || ids.length === 0)
    throw badRequest('Query parameter endpointId is required: one endpoint id or a comma-separated list.');
  const named = commandTypesOf(req);
  const types = named && named.length > 0 ? named : undefined;
  if (!types && req.ctx.config.compat.cex !== '1')
    throw badRequest(
      'Query parameter commandTypes is required: one command type or a comma-separated list ' +
        '(the first revision, --compat cex=1, lists every type without it).',
    );
  const found = [...new Set(ids)]
    .map((id) => findEndpoint(req.ctx, req.principal.tenantId, id))
    .filter((e): e is Endpoint => e !== undefined);
  res.json(found.map((e) => descriptor(req, e.endpointId, commandsOfEndpoint(req.ctx, e.endpointId, types))));
}

/**
 * Pages of endpoints (`offset`, `limit` default 100, 0 = all), each with its commands;
 * docs/services/command-invocation.md.
 */
function listByApplication(req: Request, res: Response) {
  const applicationName = pathParam(req, 'applicationName');
  const types = commandTypesOf(req);
  requireApplication(req.ctx, req.principal.tenantId, applicationName);
  const byEndpoint = new Map<string, CommandRecord[]>();
  for (const command of commandsOfApplication(req.ctx, applicationName)) {
    if (types && !types.includes(command.commandType)) continue;
    let list = byEndpoint.get(command.endpointId);
    if (!list) byEndpoint.set(command.endpointId, (list = []));
    list.push(command);
  }
  const endpointIds = [...byEndpoint.keys()].sort();
  const page = paginate(req, endpointIds, 100);
  res.json({
    content: page.items.map((id) =>
      descriptor(
        req,
        id,
        byEndpoint.get(id)!.sort((a, b) => a.commandId - b.commandId),
      ),
    ),
    totalElements: page.total,
    offset: page.offset,
    limit: page.limit,
  });
}

const invocationParams: QueryParam[] = [
  {
    name: 'waitTimeout',
    description: 'seconds to wait for the result (second revision); default 5',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'commandRetentionTtl',
    description: 'hours the command is kept (second revision); default 720',
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'awaitTimeout',
    description: 'seconds to wait for the result (first revision)',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'commandTtl',
    description: 'milliseconds the command stays pending (first revision); default 60000',
    schema: { type: 'integer', minimum: 1 },
  },
];
const commandTypes: QueryParam = { name: 'commandTypes', description: 'one or more, comma-separated' };

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/endpoints/{endpointId}/commands/{commandType}',
    scope: 'endpoint:update',
    summary: 'Invoke a command and wait for its result',
    location: true,
    body: 'raw',
    query: invocationParams,
    deniedStatus: 404,
    handler: invoke,
  },
  {
    method: 'GET',
    path: '/endpoints/{endpointId}/commands/{commandType}/{commandId}',
    scope: 'endpoint:read',
    summary: 'Get a command',
    handler: getOne,
  },
  {
    method: 'DELETE',
    path: '/endpoints/{endpointId}/commands/{commandType}/{commandId}',
    scope: 'endpoint:update',
    summary: 'Delete a command',
    successStatus: 204,
    handler: deleteOne,
  },
  {
    method: 'GET',
    path: '/endpoints/{endpointId}/commands/{commandType}/last',
    scope: 'endpoint:read',
    summary: 'Get the last executed command of a type',
    query: [{ name: 'endpointId' }, { name: 'commandType' }],
    handler: last,
  },
  {
    method: 'GET',
    path: '/endpoints/commands',
    scope: 'endpoint:read',
    summary: 'List the commands of endpoints',
    query: [
      { name: 'endpointId', required: true, description: 'one or more, comma-separated' },
      { ...commandTypes, required: true, description: 'one or more, comma-separated; optional with --compat cex=1' },
    ],
    handler: listByEndpoints,
  },
  {
    method: 'GET',
    path: '/endpoints/commands/{applicationName}',
    scope: 'application:endpoint-command:read',
    summary: "List the commands of an application's endpoints (paginated)",
    paging: 'content',
    query: [commandTypes, ...pageParams(100)],
    handler: listByApplication,
  },
];
