import { storedPassword } from '../../auth/passwords.js';
import type { FixtureSection } from '../../contract.js';
import { FixtureError } from '../../seed/errors.js';
import { findTenant } from '../tenant-manager/tenants.js';
import { BASIC_CREDENTIALS, newBasicCredential, type BasicCredential } from './basic-credentials.js';
import { CREDENTIAL_STATES, username } from './schemas.js';

/** `basicCredentials`: device logins of the MQTT broker. The password in clear, or a hash from a state export. */
export const basicCredentialFixtures: FixtureSection = {
  key: 'basicCredentials',
  label: (c) => c.username as string,
  item: {
    type: 'object',
    required: ['tenantId', 'username', 'password'],
    properties: {
      tenantId: { type: 'string' },
      username,
      password: { type: 'string', minLength: 1 },
      state: { enum: [...CREDENTIAL_STATES] },
    },
    additionalProperties: false,
  },
  async seed(ctx, items) {
    const made: BasicCredential[] = [];
    for (const item of items as Array<{
      tenantId: string;
      username: string;
      password: string;
      state?: BasicCredential['state'];
    }>) {
      if (!findTenant(ctx, item.tenantId))
        throw new FixtureError(`basicCredentials (${item.username}): there is no tenant ${item.tenantId}.`);
      if (made.some((c) => c.username === item.username && c.tenantId === item.tenantId))
        throw new FixtureError(
          `basicCredentials (${item.username}): the username is listed twice in tenant ${item.tenantId}.`,
        );
      try {
        made.push((await newBasicCredential(ctx, item.tenantId, item, storedPassword)).credential);
      } catch (err) {
        throw new FixtureError(`basicCredentials (${item.username}): ${(err as Error).message}`);
      }
    }
    await ctx.store.commit(made.map((c) => BASIC_CREDENTIALS.putMutation(c.id, c)));
  },
};
