// Credentials manager (ccm): endpoint credentials, basic (username and password) and X.509.
import type { ServiceDescriptor } from '../../contract.js';
import { basicCredentialRecord, tlsSettingRecord, x509CredentialRecord } from './schemas.js';
import { basicCredentialFixtures } from './fixtures.js';
import { routes } from './routes.js';
import { tlsSettingFixtures } from './tls-settings.js';

export const credentialsManager: ServiceDescriptor = {
  prefix: 'ccm',
  title: 'Credentials manager',
  serviceGroup: 'admin',
  routes,
  collections: {
    'basic-credentials': basicCredentialRecord,
    'x509-credentials': x509CredentialRecord,
    'tls-settings': tlsSettingRecord,
  },
  fixtures: [basicCredentialFixtures, tlsSettingFixtures],
  seedsAfter: ['tenant-manager'],
  secretFields: { 'basic-credentials': ['passwordHash'] },
};
