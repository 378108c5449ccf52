import type { JsonSchema, Route, ServiceDescriptor } from '../contract.js';
import { acceptedScopes, allScopes } from '../auth/scopes.js';
import { bodyKind } from './router.js';
import { templateParams } from './path-template.js';

const ERROR_SCHEMA = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const ERROR_RESPONSE = {
  description: 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

/** The answer of a paging operation, by its envelope (`Route.paging`). */
const PAGE_SCHEMAS: Record<NonNullable<Route['paging']>, JsonSchema> = {
  content: {
    type: 'object',
    required: ['content', 'totalElements'],
    properties: { content: { type: 'array' }, totalElements: { type: 'integer' } },
  },
  results: {
    type: 'object',
    required: ['count', 'results'],
    properties: { count: { type: 'integer' }, results: { type: 'array' } },
  },
  data: {
    type: 'object',
    required: ['data', 'count', 'page', 'pageSize'],
    properties: {
      data: { type: 'array' },
      count: { type: 'integer' },
      page: { type: 'integer' },
      pageSize: { type: 'integer' },
    },
  },
  array: { type: 'array' },
};

/** The success answer and what the route's flags add to it: the page envelope, `Location`, `ETag`, 304 and 412. */
function responses(route: Route): Record<string, unknown> {
  const success = String(route.successStatus ?? 200);
  const headers = {
    ...(route.location
      ? { Location: { description: 'The address of the resource', schema: { type: 'string', format: 'uri' } } }
      : {}),
    ...(route.etag ? { ETag: { description: 'The version of the resource', schema: { type: 'string' } } } : {}),
  };
  const answer = {
    description: success === '204' ? 'No content' : 'Success',
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(route.paging ? { content: { 'application/json': { schema: PAGE_SCHEMAS[route.paging] } } } : {}),
  };
  const read = route.method === 'GET';
  return {
    [success]: answer,
    ...(route.etag && read ? { '304': { description: 'Not modified: If-None-Match names the current version' } } : {}),
    ...(route.etag && !read
      ? { '412': { ...ERROR_RESPONSE, description: 'Precondition failed: If-Match names another version' } }
      : {}),
    default: ERROR_RESPONSE,
  };
}

function operation(service: ServiceDescriptor, route: Route) {
  const parameters = [
    ...templateParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(route.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: q.required ?? false,
      ...(q.description ? { description: q.description } : {}),
      schema: q.schema ?? { type: 'string' },
      ...(q.addition ? { 'x-platform-emu-addition': true } : {}),
    })),
  ];
  const body = bodyKind(route);
  const requestBody =
    body === 'json'
      ? {
          required: !(route.bodySchema && !('required' in route.bodySchema)),
          content: { 'application/json': { schema: route.bodySchema ?? {} } },
        }
      : body === 'raw'
        ? { content: { '*/*': { schema: {} } } }
        : body === 'form'
          ? { content: { 'application/x-www-form-urlencoded': { schema: {} }, 'application/json': { schema: {} } } }
          : undefined;
  return {
    operationId: `${service.prefix}.${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [service.title],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    security:
      route.scope === null || route.customAuth ? [] : acceptedScopes(route.scope).map((scope) => ({ realm: [scope] })),
    responses: responses(route),
    ...(route.addition ? { 'x-platform-emu-addition': true } : {}),
  };
}

/**
 * OpenAPI 3.1 of every service operation, from the route table: the same list the server mounts. Each scope is an
 * OAuth2 requirement; `tokenUrl` is the default realm's token endpoint (every realm's works the same way).
 */
export function openApiDocument(
  services: readonly ServiceDescriptor[],
  info: { version: string; serverUrl: string; tokenUrl: string },
): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const service of services) {
    for (const route of service.routes) {
      const path = `/${service.prefix}/api/v1${route.path}`;
      (paths[path] ??= {})[route.method.toLowerCase()] = operation(service, route);
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'platform-emu: the emulated device platform', version: info.version },
    servers: [{ url: info.serverUrl }],
    tags: services.map((s) => ({ name: s.title })),
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        realm: {
          type: 'oauth2',
          description:
            'A token of a tenant realm (`platform-emu token`, or the realm token endpoint); each operation names the scope it needs.',
          flows: {
            clientCredentials: {
              tokenUrl: info.tokenUrl,
              scopes: Object.fromEntries(allScopes(services).map((s) => [s, s])),
            },
          },
        },
      },
    },
  };
}
