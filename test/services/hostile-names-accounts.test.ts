import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';

/** Every property name of Object.prototype, and `__proto__`: each an ordinary name wherever user data names a key. */
const NAMES = Object.getOwnPropertyNames(Object.prototype);
/** A JSON object with one own property of that name (an object literal would set the prototype for `__proto__`). */
const own = (name: string, value: unknown) => JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(value)}}`);
const IAM = '/iam/api/v1';

describe('names of Object.prototype in integrations, accounts, recipients and endpoint configurations', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('as integration names (ttnc)', async () => {
    for (const [i, name] of NAMES.entries()) {
      // One integration per application: each name gets an application of its own.
      const app = await call('POST', '/app-manager/api/v1/applications', { body: { name: `lorawan-${i}` } });
      expect(app.status, app.text).toBe(201);
      const made = await call('POST', '/ttnc/api/v1/integrations', {
        body: {
          appName: `lorawan-${i}`,
          lnsUsername: `user-${name}`,
          lnsApiKeyId: 'NNSXS.KEY',
          lnsIdentityServerHost: 'eu1.cloud.thethings.network',
          lnsPlainMqttServerUrl: 'eu1.cloud.thethings.network:1883',
          name,
          description: name,
        },
      });
      expect(made.status, `${name}: ${made.text}`).toBe(201);
      const read = await call('GET', `/ttnc/api/v1/integrations/${made.body.id}`);
      expect(read.status, name).toBe(200);
      expect(read.body.name, name).toBe(name);
    }
    const listed = await call('GET', '/ttnc/api/v1/integrations');
    expect(listed.status, listed.text).toBe(200);
  });

  it('as user names, paths, group names and policy names (iam)', async () => {
    for (const [i, name] of NAMES.entries()) {
      const policy = await call('POST', `${IAM}/policies`, {
        body: { name, statements: [{ effect: 'allow', actions: ['endpoint:read'] }] },
      });
      expect(policy.status, `${name}: ${policy.text}`).toBe(201);
      const read = await call('GET', `${IAM}/policies/${policy.body.data.id}`);
      expect(read.body.data.name, name).toBe(name);
      const group = await call('POST', `${IAM}/groups`, { body: { name, policyIDs: [policy.body.data.id] } });
      expect(group.status, `${name}: ${group.text}`).toBe(201);
      const user = await call('POST', `${IAM}/users`, {
        body: {
          email: `user${i}@acme.com`,
          username: name,
          path: name,
          password: 'pw-1',
          confirmPassword: 'pw-1',
          groups: [group.body.data.id],
        },
      });
      expect(user.status, `${name}: ${user.text}`).toBe(201);
      const policyOf = await call('GET', `${IAM}/users/${user.body.data.id}/policy`);
      expect(policyOf.status, `${name}: ${policyOf.text}`).toBe(200);
    }
    const paths = await call('GET', `${IAM}/users/paths`);
    expect(paths.status, paths.text).toBe(200);
    expect(JSON.stringify(paths.body)).toContain('"__proto__"');
    for (const list of ['/users', '/groups', '/policies']) {
      const listed = await call('GET', `${IAM}${list}?size=100`);
      expect(listed.status, `${list}: ${listed.text}`).toBe(200);
    }
  });

  it('as recipient names (automation) and as notification types (404)', async () => {
    for (const name of NAMES) {
      const recipient = `${name}@acme.test`;
      const made = await call('POST', '/automation/api/v1/notification-types/email/recipients', {
        body: { recipient },
      });
      expect(made.status, `${name}: ${made.text}`).toBe(201);
      const read = await call('GET', `/automation/api/v1/notification-types/email/recipients/${made.body.id}`);
      expect(read.status, name).toBe(200);
      expect((await call('GET', `/_emu/mail?to=${encodeURIComponent(recipient)}`)).body, name).toHaveLength(1);
      const type = await call('GET', `/automation/api/v1/notification-types/${name}/recipients`);
      expect(type.status, `${name}: ${type.text}`).toBe(404);
    }
  });

  it('as configuration keys, version names and endpoint ids of a batch (ecr)', async () => {
    const endpoint = await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, endpointId: 'hostile-tracker' },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const one = '/ecr/api/v1/endpoints/hostile-tracker/app-versions/tracker-v1';
    for (const name of NAMES) {
      const put = await call('PUT', one, { body: own(name, { [name]: 1 }) });
      expect(put.status, `${name}: ${put.text}`).toBeLessThan(300);
      const read = await call('GET', one);
      expect(read.status, name).toBe(200);
      expect(JSON.stringify(read.body), name).toBe(JSON.stringify(own(name, { [name]: 1 })));
      const batch = await call('PUT', '/ecr/api/v1/endpoints/batch', {
        body: { configPayload: { a: 1 }, endpoints: own(name, ['hostile-tracker']) },
      });
      expect(batch.status, `${name}: ${batch.text}`).toBe(404);
      const byId = await call('PUT', '/ecr/api/v1/endpoints/batch', {
        body: { configPayload: { a: 1 }, endpoints: { 'tracker-v1': [name] } },
      });
      expect(byId.status, `${name}: ${byId.text}`).toBe(404);
    }
  });
});
