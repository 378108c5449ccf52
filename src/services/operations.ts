import { bareOperationAt, listOperations as operationsOf, type Operation } from '../server/service-list.js';
import { bySpecificity, matchTemplate, safeDecode, segmentsOf } from '../server/path-template.js';
import { services } from './index.js';

export type { Operation };

/** Every operation of the service list, as `call --list` prints it. */
export const listOperations = () => operationsOf(services);

/**
 * The operation a bare path (`/endpoints/meter-001`, no service prefix) means, as the server's bare `/api/v1` answers
 * it.
 */
export const resolveBarePath = (method: string, path: string) => bareOperationAt(services, method, path);

/** The operation a full path (`/epr/api/v1/endpoints/x`) or bare path names, for checking a body before it is sent. */
export function resolveOperation(method: string, path: string): Operation | undefined {
  const [first, second, third, ...rest] = segmentsOf(path.split('?')[0]);
  const service = services.find((s) => s.prefix === first && second === 'api' && third === 'v1');
  if (service) {
    const segments = rest.map(safeDecode);
    const matching = listOperations()
      .filter(
        (o) =>
          o.service === service &&
          o.route.method === method.toUpperCase() &&
          matchTemplate(o.route.path, segments) !== undefined,
      )
      .sort((a, b) => bySpecificity(a.route.path, b.route.path));
    return matching[0];
  }
  if (first === 'api' && second === 'v1') return resolveBarePath(method, `/${[third, ...rest].join('/')}`);
  return undefined;
}
