import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ServiceDescriptor } from '../src/contract.js';
import { bareOperations } from '../src/server/service-list.js';
import { seedOrder } from '../src/seed/load.js';
import { services } from '../src/services/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The rows of the README's services table: `| Title | \`.../<prefix>/api/v1\` | [docs/services/x.md](...) |`. */
const readmeRows = [
  ...readme.matchAll(/^\| ([^|]+) \| `http:\/\/127\.0\.0\.1:8080\/([^/]+)\/api\/v1` \| \[(docs\/services\/[^\]]+)\]/gm),
].map((m) => ({
  title: m[1].trim(),
  prefix: m[2],
  doc: m[3],
}));

const stub = (prefix: string, extra: Partial<ServiceDescriptor> = {}): ServiceDescriptor => ({
  prefix,
  title: prefix,
  serviceGroup: 'device',
  routes: [{ method: 'GET', path: '/things/{id}', scope: null, summary: 'Get a thing', handler: () => undefined }],
  ...extra,
});

describe('the service list is the one source', () => {
  it("the README's table lists exactly the served services, each with its docs page", () => {
    expect(readmeRows.map((r) => r.prefix).sort()).toEqual(services.map((s) => s.prefix).sort());
    for (const row of readmeRows) {
      expect(services.find((s) => s.prefix === row.prefix)?.title).toBe(row.title);
      expect(existsSync(new URL(`../${row.doc}`, import.meta.url)), row.doc).toBe(true);
    }
  });

  it('seeding follows seedsAfter, whatever the order of the list', () => {
    const forward = seedOrder(services).map((s) => s.prefix);
    const backward = seedOrder([...services].reverse()).map((s) => s.prefix);
    for (const order of [forward, backward]) {
      for (const service of services) {
        for (const before of service.seedsAfter ?? [])
          expect(order.indexOf(before)).toBeLessThan(order.indexOf(service.prefix));
      }
    }
    expect(() => seedOrder([stub('a', { seedsAfter: ['b'] }), stub('b', { seedsAfter: ['a'] })])).toThrow(
      /circle: a -> b -> a/,
    );
    expect(() => seedOrder([stub('a', { seedsAfter: ['nope'] })])).toThrow(/not in the service list/);
  });

  it('a bare path two services share goes to its owner, never to the first listed', () => {
    const owner = stub('owner', { ownsBarePath: ['GET /things/{id}'] });
    for (const list of [
      [stub('other'), owner],
      [owner, stub('other')],
    ]) {
      const shared = bareOperations(list).filter((o) => o.route.path === '/things/{id}');
      expect(shared.map((o) => o.service.prefix)).toEqual(['owner']);
    }
    expect(() => bareOperations([stub('a'), stub('b')])).toThrow(
      /GET \/things\/\{id\} is served by a, b: exactly one of them must list it in ownsBarePath/,
    );
    expect(() => bareOperations(services)).not.toThrow();
  });
});
