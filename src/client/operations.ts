import type { Route, ServiceDescriptor } from '../server/service.js';
import { services } from '../services/index.js';

/** One operation of the route table the server mounts, with its full path. */
export interface Operation {
  service: ServiceDescriptor;
  route: Route;
  /** `/epr/api/v1/endpoints/{endpointId}` */
  fullPath: string;
}

export function listOperations(list: readonly ServiceDescriptor[] = services): Operation[] {
  return list.flatMap((service) => service.routes.map((route) => ({ service, route, fullPath: `/${service.prefix}/api/v1${route.path}` })));
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/**
 * How well a spec-style route path matches concrete segments: undefined when it does not, otherwise
 * one flag per segment (1 = parameter), compared so that literal segments win early, as the server's router does.
 */
function matchShape(routePath: string, segments: string[]): number[] | undefined {
  const pattern = segmentsOf(routePath);
  if (pattern.length !== segments.length) return undefined;
  const shape: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const isParam = /^\{\w+\}$/.test(pattern[i]);
    if (!isParam && pattern[i] !== segments[i]) return undefined;
    shape.push(isParam ? 1 : 0);
  }
  return shape;
}

function compareShapes(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * The operation a bare path (`/endpoints/meter-001`, no service prefix) means: the most specific route
 * with that method, among equals the service listed first (the rule of the server's bare `/api/v1`).
 * Falls back to a route of another method on the same path, so that the server can answer 405.
 */
export function resolveBarePath(method: string, path: string, list: readonly ServiceDescriptor[] = services): Operation | undefined {
  const segments = segmentsOf(path.split('?')[0]).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  let best: { operation: Operation; shape: number[]; sameMethod: boolean } | undefined;
  for (const operation of listOperations(list)) {
    const shape = matchShape(operation.route.path, segments);
    if (!shape) continue;
    const sameMethod = operation.route.method === method.toUpperCase();
    const better =
      !best || (sameMethod && !best.sameMethod) || (sameMethod === best.sameMethod && compareShapes(shape, best.shape) < 0);
    if (better) best = { operation, shape, sameMethod };
  }
  return best?.operation;
}

/** Paths that already name where they go: a service prefix, the bare base, the control plane, KP1, OIDC. */
export function isRoutablePath(path: string, list: readonly ServiceDescriptor[] = services): boolean {
  const first = segmentsOf(path)[0] ?? '';
  if (['api', '_emu', 'kp1', 'auth'].includes(first)) return true;
  return list.some((s) => s.prefix === first && segmentsOf(path)[1] === 'api');
}
