// Automation connector (automation): notification recipients and the e-mail the platform would send them.
import type { ServiceDescriptor } from '../../contract.js';
import { mailControlRouter } from './control.js';
import { CAPTURED_MAIL, releaseMailWaiters } from './mail.js';
import { RECIPIENTS } from './recipients.js';
import { routes } from './routes.js';
import { capturedMailRecord, recipientRecord } from './schemas.js';

export const automationConnector: ServiceDescriptor = {
  prefix: 'automation',
  title: 'Automation connector',
  serviceGroup: 'device',
  routes,
  collections: {
    [RECIPIENTS.name]: recipientRecord,
    [CAPTURED_MAIL.name]: capturedMailRecord,
  },
  controlPlane: mailControlRouter,
  teardown: releaseMailWaiters,
};
