import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { services } from '../src/services/index.js';
import { api, startTestEmulator, tokenFor } from './helpers/emulator.js';

type Operation = [service: string, method: string, path: string, scope: string | null];

const vendored = new URL('./spec/operations.json', import.meta.url);
const shared = new URL('../../shared/spec/operations.json', import.meta.url);
const operations = (JSON.parse(readFileSync(vendored, 'utf8')) as { operations: Operation[] }).operations;

/** Values that exist in the default fixtures, so that a granted request gets past routing and auth. */
const SAMPLE: Record<string, string> = {
  endpointId: 'meter-001',
  appName: 'smart-meter',
  applicationName: 'smart-meter',
  appVersionName: 'smart-meter-v1',
  tenantId: 'acme',
  serviceInstanceName: 'epr',
  notificationType: 'email',
  commandType: 'reboot',
};

const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => SAMPLE[name] ?? '1');
const normalize = (scope: string | null) => scope?.replace(/\s*\|\s*/g, ' | ') ?? null;
const implemented = new Map(services.map((s) => [s.prefix, s]));

describe('operations.json', () => {
  it('is the copy of the shared spec', () => {
    if (!existsSync(shared)) return expect(existsSync(vendored)).toBe(true);
    expect(readFileSync(vendored, 'utf8')).toBe(readFileSync(shared, 'utf8'));
  });
});

describe('the route table', () => {
  const inSpec = new Set(operations.map(([prefix, method, path]) => `${prefix} ${method} ${path}`));
  const routes = services.flatMap((s) =>
    s.routes.map((route) => ({ name: `${s.prefix} ${route.method} ${route.path}`, route })),
  );

  it('holds the operations of the spec, and marks every other one addition: true', () => {
    expect(routes.filter(({ name, route }) => !inSpec.has(name) && !route.addition).map((r) => r.name)).toEqual([]);
    expect(routes.filter(({ name, route }) => inSpec.has(name) && route.addition).map((r) => r.name)).toEqual([]);
  });

  it('names the paging envelope of exactly the operations that take offset/limit or page/pageSize', () => {
    const pages = (route: (typeof routes)[number]['route']) =>
      (route.query ?? []).some((q) => q.name === 'offset' || q.name === 'page');
    expect(routes.filter(({ route }) => pages(route) !== (route.paging !== undefined)).map((r) => r.name)).toEqual([]);
    const byPage = routes.filter(({ route }) => route.query?.some((q) => q.name === 'page'));
    expect(byPage.every(({ route }) => route.paging === 'data')).toBe(true);
  });
});

describe('every operation of the spec is mounted under its prefix and guarded by its scope', async () => {
  const emulator = await startTestEmulator({ auth: 'on' });
  const call = api(emulator);
  const unrelated = await tokenFor(emulator, { scopes: ['nothing:at-all'] });

  for (const [prefix, method, path, scope] of operations) {
    const service = implemented.get(prefix);
    const name = `${method} /${prefix}/api/v1${path} (${scope ?? 'no scope'})`;
    if (!service) {
      it.todo(`${name}: service not implemented yet`);
      continue;
    }
    it(name, async () => {
      const route = service.routes.find((r) => r.method === method && r.path === path);
      expect(route, 'route table entry').toBeDefined();
      expect(normalize(route!.scope)).toBe(normalize(scope));
      const url = `/${prefix}/api/v1${concrete(path)}`;
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      if (scope === null || route!.customAuth) {
        const open = await call(method, url, { body });
        expect(open.status, open.text).not.toBe(401);
        expect(open.status, open.text).not.toBe(405);
        return;
      }
      const anonymous = await call(method, url, { body });
      expect(anonymous.status, anonymous.text).toBe(401);
      const denied = await call(method, url, { body, token: unrelated });
      expect(denied.status, denied.text).toBe(route!.deniedStatus ?? 403);
      for (const granted of scope.split('|').map((s) => s.trim().replace('<platform>', 'platform'))) {
        const token = await tokenFor(emulator, { scopes: [granted] });
        const allowed = await call(method, url, { body, token });
        expect([401, 403, 405], `${granted}: ${allowed.status} ${allowed.text}`).not.toContain(allowed.status);
      }
    });
  }
});
