// Credentials manager (ccm): endpoint credentials, basic (username and password) and X.509.
import { withPasswordHash } from '../../auth/passwords.js';
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { basicCredentialFixtures } from './fixtures.js';
import { routes } from './routes.js';

export const credentialsManager: ServiceDescriptor = {
  prefix: 'ccm',
  title: 'Credentials manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    'basic-credentials': withPasswordHash(tenantRecord(['id', 'username', 'passwordHash', 'state', 'createdDate', 'updatedDate'])),
    'x509-credentials': tenantRecord(['id', 'state', 'serialNumber', 'commonName', 'invalidAfter', 'fingerprint', 'createdDate', 'updatedDate']),
  },
  fixtures: [basicCredentialFixtures],
  seedsAfter: ['tenant-manager'],
};
