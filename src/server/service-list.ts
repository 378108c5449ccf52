import { routeKey, type Route, type ServiceDescriptor } from '../contract.js';

/** One operation of the route table, with its full path. */
export interface Operation {
  service: ServiceDescriptor;
  route: Route;
  /** `/epr/api/v1/endpoints/{endpointId}` */
  fullPath: string;
}

export function listOperations(services: readonly ServiceDescriptor[]): Operation[] {
  return services.flatMap((service) => service.routes.map((route) => ({ service, route, fullPath: `/${service.prefix}/api/v1${route.path}` })));
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
      throw new Error(`${key} is served by ${names}: exactly one of them must list it in ownsBarePath (found ${owners.length}).`);
    }
    return owners[0];
  });
}

/** What is wrong with a `--compat` choice (`{ cex: '9' }`), naming the revisions each service offers; undefined when nothing is. */
export function compatProblem(compat: Record<string, string>, services: readonly ServiceDescriptor[]): string | undefined {
  const offered = services.filter((s) => s.compat);
  const choices = offered.map((s) => `${s.prefix}=${s.compat!.revisions.join('|')}`).join(', ');
  for (const [prefix, revision] of Object.entries(compat)) {
    const service = offered.find((s) => s.prefix === prefix);
    if (!service) return `--compat ${prefix}=${revision}: ${prefix} has no revisions to choose from; the choices are ${choices}.`;
    if (!service.compat!.revisions.includes(revision)) {
      return `--compat ${prefix}=${revision}: the revisions of ${prefix} are ${service.compat!.revisions.join(', ')} (default ${service.compat!.default}).`;
    }
  }
  return undefined;
}
