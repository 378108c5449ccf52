import { readFile } from 'node:fs/promises';
import type { EmuContext } from '../context.js';
import type { ServiceDescriptor } from '../contract.js';
import { StoreValueError } from '../store/index.js';
import { FixtureError } from './errors.js';
import { validateFixture } from './validate.js';

export async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new FixtureError(
      `Cannot read the ${what} ${path}: ` +
        `${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new FixtureError(`The ${what} ${path} is not valid JSON: ${(err as Error).message}.`);
  }
}

/** The services in an order where each comes after those it `seedsAfter`; the list's own order does not matter. */
export function seedOrder(services: readonly ServiceDescriptor[]): ServiceDescriptor[] {
  const byPrefix = new Map(services.map((s) => [s.prefix, s]));
  const ordered: ServiceDescriptor[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (service: ServiceDescriptor, path: string[]) => {
    if (state.get(service.prefix) === 'done') return;
    if (state.get(service.prefix) === 'visiting')
      throw new Error(`Services seed after each other in a circle: ${[...path, service.prefix].join(' -> ')}.`);
    state.set(service.prefix, 'visiting');
    for (const before of service.seedsAfter ?? []) {
      const dependency = byPrefix.get(before);
      if (!dependency)
        throw new Error(`Service ${service.prefix} seeds after ${before}, which is not in the service list.`);
      visit(dependency, [...path, service.prefix]);
    }
    state.set(service.prefix, 'done');
    ordered.push(service);
  };
  for (const service of services) visit(service, []);
  return ordered;
}

export interface SeedOptions {
  /**
   * The fixture is the package's own (`fixtures/default.json`): the tests check its records against their schemas
   * (test/fixtures.test.ts), so a start on it does not compile them (ajv and its compilation are most of a first
   * start's seeding). Every other check still runs.
   */
  schemasChecked?: boolean;
}

/** Seeds an empty state from a fixture document: validated first, then each service's sections in seed order. */
export async function seedFixture(
  ctx: EmuContext,
  fixture: unknown,
  source: string,
  { schemasChecked = false }: SeedOptions = {},
): Promise<void> {
  const valid = validateFixture(fixture, ctx.services, source, { schemasChecked });
  for (const service of seedOrder(ctx.services)) {
    for (const section of service.fixtures ?? []) {
      const items = valid[section.key];
      if (Array.isArray(items)) {
        try {
          await section.seed(ctx, items as Record<string, unknown>[], valid, { schemasChecked });
        } catch (err) {
          // A record the store refuses (nested too deep, say) is the file's fault as much as a rule it breaks.
          if (err instanceof FixtureError || err instanceof StoreValueError)
            throw new FixtureError(`${source}: ${err.message}`);
          throw err;
        }
      }
    }
  }
}
