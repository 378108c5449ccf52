import { tenantRecord, type ServiceDescriptor } from '../../server/contract.js';
import { mailControlRouter } from './control.js';
import { releaseMailWaiters } from './mail.js';
import { setupRecipientIndexes } from './recipients.js';
import { routes } from './routes.js';

export const automationConnector: ServiceDescriptor = {
  prefix: 'automation',
  title: 'Automation connector',
  serviceGroup: 'device',
  routes,
  collections: {
    'notification-recipients': tenantRecord('notificationType', 'recipient', 'state', 'verificationToken', 'createdAt', 'updatedAt'),
    'captured-mail': tenantRecord('to', 'subject', 'text', 'sentAt'),
  },
  controlPlane: mailControlRouter,
  setup: setupRecipientIndexes,
  teardown: releaseMailWaiters,
};
