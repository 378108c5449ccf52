// Automation connector (automation): notification recipients and the e-mail the platform would send them.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { mailControlRouter } from './control.js';
import { CAPTURED_MAIL, releaseMailWaiters } from './mail.js';
import { RECIPIENTS, setupRecipientIndexes } from './recipients.js';
import { routes } from './routes.js';

export const automationConnector: ServiceDescriptor = {
  prefix: 'automation',
  title: 'Automation connector',
  serviceGroup: 'device',
  routes,
  collections: {
    [RECIPIENTS]: tenantRecord(['notificationType', 'recipient', 'state', 'verificationToken', 'createdAt', 'updatedAt']),
    [CAPTURED_MAIL]: tenantRecord(['to', 'subject', 'text', 'sentAt']),
  },
  controlPlane: mailControlRouter,
  setup: setupRecipientIndexes,
  teardown: releaseMailWaiters,
};
