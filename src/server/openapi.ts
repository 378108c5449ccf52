import { routeKey, type JsonSchema, type Route, type ServiceDescriptor } from '../contract.js';
import { acceptedScopes, allScopes } from '../auth/scopes.js';
import { BINARY, RECORD_SCHEMAS, SUCCESS_BODIES } from './openapi-bodies.js';
import { SPEC_STATUSES } from './openapi-statuses.js';
import { bodyKind } from './router.js';
import { templateParams } from './path-template.js';

const ERROR_SCHEMA = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
const ERROR_RESPONSE = { description: 'Error', content: ERROR_CONTENT };

const STATUS_TEXT: Record<number, string> = {
  304: 'Not modified: the condition (If-None-Match, If-Modified-Since) names the current version',
  400: 'Bad request: a parameter or the body is not valid',
  401: 'Not authenticated: no token, or one that is not valid',
  403: 'Forbidden: the token lacks the scope',
  404: 'Not found, or not visible to the caller',
  409: 'Conflict: the name or id is taken',
  412: 'Precondition failed: If-Match or If-Unmodified-Since names another version; nothing was changed',
  415: 'Unsupported media type',
  422: 'The payload does not satisfy the configured schema',
  503: 'The service is configured with an invalid schema',
};

/** The answer of a paging operation, by its envelope (`Route.paging`), where the operation names no body of its own. */
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

const header = (name: string, description: string, required = false) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string' },
});
const isRead = (route: Route) => route.method === 'GET';

/** The header parameters a route reads: the upload token, and the conditions of its `ETag`. */
function headerParams(route: Route) {
  if (route.customAuth) return [header('X-Auth-Token', 'The endpoint upload token', true)];
  if (!route.etag) return [];
  return isRead(route)
    ? [
        header('If-None-Match', 'ETag of the copy the client holds: 304 when current'),
        header('If-Modified-Since', 'HTTP date: 304 when not modified since'),
      ]
    : [
        header('If-Match', 'ETag the resource must have: 412 otherwise'),
        header('If-Unmodified-Since', 'HTTP date: 412 when modified since'),
      ];
}

/** Every error status the operation may answer: the spec's, and those its route flags imply. */
function errorStatuses(service: ServiceDescriptor, route: Route): number[] {
  const statuses = new Set(SPEC_STATUSES[`${service.prefix} ${routeKey(route)}`]?.errors ?? []);
  if (route.customAuth) statuses.add(403);
  else if (route.scope !== null) statuses.add(401).add(route.deniedStatus ?? 403);
  if (route.etag) statuses.add(isRead(route) ? 304 : 412);
  if (bodyKind(route) !== 'none' || (route.query ?? []).length > 0) statuses.add(400);
  if (templateParams(route.path).length > 0) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

function successContent(service: ServiceDescriptor, route: Route, status: number) {
  if (status === 204) return undefined;
  const body = SUCCESS_BODIES[`${service.prefix} ${routeKey(route)}`];
  if (body === BINARY) return { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
  return { 'application/json': { schema: body ?? (route.paging ? PAGE_SCHEMAS[route.paging] : {}) } };
}

/** The success answers, the errors, and the headers each carries: `Location`, `ETag`, `Last-Modified`. */
function responses(service: ServiceDescriptor, route: Route): Record<string, unknown> {
  const success = route.successStatus ?? 200;
  const spec = SPEC_STATUSES[`${service.prefix} ${routeKey(route)}`];
  const headers = {
    ...(route.location
      ? { Location: { description: 'The address of the resource', schema: { type: 'string', format: 'uri' } } }
      : {}),
    ...(route.etag ? { ETag: { description: 'The version of the resource', schema: { type: 'string' } } } : {}),
    ...(route.etag && isRead(route)
      ? { 'Last-Modified': { description: 'When the resource last changed', schema: { type: 'string' } } }
      : {}),
  };
  const answer = (status: number) => {
    const content = successContent(service, route, status);
    return {
      description:
        status === 204
          ? 'No content'
          : status === 202
            ? 'Accepted: not finished yet'
            : status === 201
              ? 'Created'
              : 'Success',
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(content ? { content } : {}),
    };
  };
  const bare = route.bareErrors === true;
  const errors = Object.fromEntries(
    errorStatuses(service, route).map((status) => {
      const description = STATUS_TEXT[status] ?? 'Error';
      const noBody = status === 304 || (bare && (status === 400 || status === 401 || status === 403));
      return [String(status), noBody ? { description } : { description, content: ERROR_CONTENT }];
    }),
  );
  return {
    [String(success)]: answer(success),
    ...Object.fromEntries((spec?.alternatives ?? []).map((status) => [String(status), answer(status)])),
    ...errors,
    default: ERROR_RESPONSE,
  };
}

/** `/endpoints/{endpointId}/metadata` as `EndpointsEndpointIdMetadata`, for operation ids. */
const camelCasePath = (path: string) =>
  path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''));

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
    ...headerParams(route),
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
    operationId: `${service.prefix}.${route.method.toLowerCase()}${camelCasePath(route.path)}`,
    summary: route.summary,
    tags: [service.title],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    security:
      route.scope === null || route.customAuth ? [] : acceptedScopes(route.scope).map((scope) => ({ realm: [scope] })),
    responses: responses(service, route),
    ...(route.deprecated ? { deprecated: true } : {}),
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
      schemas: { Error: ERROR_SCHEMA, ...RECORD_SCHEMAS },
      securitySchemes: {
        realm: {
          type: 'oauth2',
          description:
            'A token of a tenant realm (`platform-emu token`, or the realm token endpoint); each operation ' +
            'names the scope it needs.',
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
