import { routeKey, type Route, type ServiceDescriptor } from '../contract.js';
import { bySpecificity, matchTemplate, safeDecode, segmentsOf } from './path-template.js';

/** One operation of the route table, with its full path. */
export interface Operation {
  service: ServiceDescriptor;
  route: Route;
  /** `/epr/api/v1/endpoints/{endpointId}` */
  fullPath: string;
}

export function listOperations(services: readonly ServiceDescriptor[]): Operation[] {
  return services.flatMap((service) =>
    service.routes.map((route) => ({ service, route, fullPath: `/${service.prefix}/api/v1${route.path}` })),
  );
}

/**
 * The operations of the bare `/api/v1` (spec 1 `{base_url}`): every route once; where two services share a
 * method and path, the one whose descriptor says `ownsBarePath`. A share nobody (or everybody) owns is a mistake
 * in the service list, reported at start rather than decided by list order.
 */
export function bareOperations(services: readonly ServiceDescriptor[]): Operation[] {
  const byKey = new Map<string, Operation[]>();
  for (const operation of listOperations(services)) {
    const key = routeKey(operation.route);
    byKey.set(key, [...(byKey.get(key) ?? []), operation]);
  }
  return [...byKey.entries()].map(([key, candidates]) => {
    if (candidates.length === 1) return candidates[0];
    const owners = candidates.filter((o) => o.service.ownsBarePath?.includes(key));
    if (owners.length !== 1) {
      const names = candidates.map((o) => o.service.prefix).join(', ');
      throw new Error(
        `${key} is served by ${names}: exactly one of them must list it in ownsBarePath (found ${owners.length}).`,
      );
    }
    return owners[0];
  });
}

const bareTables = new WeakMap<readonly ServiceDescriptor[], Operation[]>();

/**
 * The operation a bare path (`/endpoints/meter-001`, what follows `/api/v1`) reaches, as the server's bare `/api/v1`
 * routes it: the most specific route with that method; else one of another method on the same path (the server's
 * 405); undefined when no operation has the path (a 404).
 */
export function bareOperationAt(
  services: readonly ServiceDescriptor[],
  method: string,
  path: string,
): Operation | undefined {
  let table = bareTables.get(services);
  if (!table)
    bareTables.set(
      services,
      (table = bareOperations(services).sort((a, b) => bySpecificity(a.route.path, b.route.path))),
    );
  const segments = segmentsOf(path.split('?')[0]).map(safeDecode);
  const upper = method.toUpperCase();
  let otherMethod: Operation | undefined;
  for (const operation of table) {
    if (matchTemplate(operation.route.path, segments) === undefined) continue;
    if (operation.route.method === upper) return operation;
    otherMethod ??= operation;
  }
  return otherMethod;
}

const BARE = '/api/v1';

/**
 * The service a request path belongs to: its prefix (`/epr/api/v1/...`), or for the bare `/api/v1/...` the service
 * whose operation answers it. Undefined for paths outside the services and bare paths no operation has.
 */
export function serviceOfPath(
  services: readonly ServiceDescriptor[],
  method: string,
  path: string,
): ServiceDescriptor | undefined {
  const [first] = segmentsOf(path.split('?')[0]);
  if (first === 'api' && (path.startsWith(`${BARE}/`) || path.startsWith(`${BARE}?`) || path === BARE)) {
    return bareOperationAt(services, method, path.slice(BARE.length))?.service;
  }
  return services.find((s) => s.prefix === first);
}

/**
 * A service operation's other spelling: `/api/v1/endpoints/x` for `/epr/api/v1/endpoints/x` and back, where the bare
 * path reaches the same service's operation (the configuration listing `/ecr/api/v1/endpoints/x` has none).
 */
export function otherSpelling(
  services: readonly ServiceDescriptor[],
  method: string,
  path: string,
): string | undefined {
  if (path.startsWith(`${BARE}/`)) {
    const service = bareOperationAt(services, method, path.slice(BARE.length))?.service;
    return service && `/${service.prefix}${path}`;
  }
  const end = path.indexOf('/', 1);
  const service = end === -1 ? undefined : services.find((s) => s.prefix === path.slice(1, end));
  if (!service || !path.startsWith(`/${service.prefix}${BARE}/`)) return undefined;
  const bare = path.slice(service.prefix.length + 1);
  return bareOperationAt(services, method, bare.slice(BARE.length))?.service === service ? bare : undefined;
}
