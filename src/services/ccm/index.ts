import type { ServiceDescriptor } from '../../contract.js';
import { basicCredentialRecord, x509CredentialRecord } from './schemas.js';
import { setupCredentialIndexes } from './basic-credentials.js';
import { basicCredentialFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { setupX509Indexes } from './x509-credentials.js';

export const credentialsManager: ServiceDescriptor = {
  prefix: 'ccm',
  title: 'Credentials manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    'basic-credentials': basicCredentialRecord,
    'x509-credentials': x509CredentialRecord,
  },
  fixtures: [basicCredentialFixtures],
  seedsAfter: ['tenant-manager'],
  setup(ctx) {
    setupCredentialIndexes(ctx);
    setupX509Indexes(ctx);
  },
};
