// Automation connector (automation): notification recipients and the e-mail the platform would send them.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { mailControlRouter } from './control.js';
import { CAPTURED_MAIL, releaseMailWaiters } from './mail.js';
import { RECIPIENTS } from './recipients.js';
import { routes } from './routes.js';

export const automationConnector: ServiceDescriptor = {
  prefix: 'automation',
  title: 'Automation connector',
  serviceGroup: 'device',
  routes,
  collections: {
    [RECIPIENTS.name]: tenantRecord(['notificationType', 'recipient', 'state', 'verificationToken', 'createdAt', 'updatedAt']),
    [CAPTURED_MAIL.name]: tenantRecord(['to', 'subject', 'text', 'sentAt']),
  },
  controlPlane: mailControlRouter,
  teardown: releaseMailWaiters,
};
