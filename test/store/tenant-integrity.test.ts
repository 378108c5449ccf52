import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

type State = { collections: Record<string, Record<string, any>> };

describe('an import keeps tenants whole', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  /** The state with one change: refused with 400 naming `pattern`, and nothing changed. */
  async function refused(change: (state: State) => void, pattern: RegExp): Promise<void> {
    const before = (await call('GET', '/_emu/state?includeSecrets=true')).body;
    const state = structuredClone(before);
    change(state);
    const response = await call('PUT', '/_emu/state', { body: state });
    expect(response.status, response.text).toBe(400);
    expect(response.body.message).toMatch(pattern);
    expect((await call('GET', '/_emu/state?includeSecrets=true')).body).toEqual(before);
  }

  it('refuses a second tenant with an existing realm_name (it would shadow the first)', async () => {
    await refused((s) => {
      s.collections.tenants.initech = {
        ...s.collections.tenants.globex,
        id: 'initech',
        tenantId: 'initech',
        realm_name: 'acme',
      };
    }, /collections\.tenants\["initech"\]: realm_name "acme" is already the realm of tenant acme/);
  });

  it('refuses records of a tenant that does not exist, naming the record', async () => {
    await refused((s) => {
      s.collections.endpoints['meter-001'].tenantId = 'nobody';
    }, /collections\.endpoints\["meter-001"\]: tenantId "nobody" is not a tenant of the document/);
    await refused((s) => {
      delete s.collections.tenants.globex;
    }, /tenantId "globex" is not a tenant of the document/);
  });

  it('refuses the same in a fixture file', async () => {
    const fixture = {
      tenants: [
        { id: 'first', realm_name: 'shared-realm' },
        { id: 'second', realm_name: 'shared-realm' },
      ],
    };
    const response = await call('PUT', '/_emu/state', { body: fixture });
    expect(response.status, response.text).toBe(400);
    expect(response.body.message).toMatch(
      /tenants\[1\] \(second\): realm_name "shared-realm" is already the realm of tenant first/,
    );
  });

  it('accepts the state it exported', async () => {
    const state = (await call('GET', '/_emu/state?includeSecrets=true')).body;
    expect((await call('PUT', '/_emu/state', { body: state })).status).toBe(204);
  });
});
