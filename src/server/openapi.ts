import type { JsonSchema, Route, ServiceDescriptor } from '../contract.js';
import { acceptedScopes, allScopes } from '../auth/scopes.js';
import { bodyKind } from './router.js';
import { templateParams } from './path-template.js';

const ERROR_SCHEMA = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const ERROR_RESPONSE = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

function operation(service: ServiceDescriptor, route: Route) {
  const parameters = [
    ...templateParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(route.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: q.required ?? false,
      ...(q.description ? { description: q.description } : {}),
      schema: q.schema ?? { type: 'string' },
    })),
  ];
  const body = bodyKind(route);
  const requestBody =
    body === 'json'
      ? { required: !(route.bodySchema && !('required' in route.bodySchema)), content: { 'application/json': { schema: route.bodySchema ?? {} } } }
      : body === 'raw'
        ? { content: { '*/*': { schema: {} } } }
        : undefined;
  const success = String(route.successStatus ?? 200);
  return {
    operationId: `${service.prefix}.${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [service.title],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    security: route.scope === null || route.customAuth ? [] : acceptedScopes(route.scope).map((scope) => ({ realm: [scope] })),
    responses: { [success]: { description: success === '204' ? 'No content' : 'Success' }, default: ERROR_RESPONSE },
  };
}

/**
 * OpenAPI 3.1 of every service operation, from the route table: the same list the server mounts. Each scope is an
 * OAuth2 requirement; `tokenUrl` is the default realm's token endpoint (every realm's works the same way).
 */
export function openApiDocument(services: readonly ServiceDescriptor[], info: { version: string; serverUrl: string; tokenUrl: string }): JsonSchema {
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
          description: 'A token of a tenant realm (`platform-emu token`, or the realm token endpoint); each operation names the scope it needs.',
          flows: { clientCredentials: { tokenUrl: info.tokenUrl, scopes: Object.fromEntries(allScopes(services).map((s) => [s, s])) } },
        },
      },
    },
  };
}
