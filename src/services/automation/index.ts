import type { ServiceDescriptor } from '../../contract.js';
import { mailControlRouter } from './control.js';
import { CAPTURED_MAIL, releaseMailWaiters } from './mail.js';
import { RECIPIENTS, setupRecipientIndexes } from './recipients.js';
import { routes } from './routes.js';
import { capturedMailRecord, recipientRecord } from './schemas.js';

export const automationConnector: ServiceDescriptor = {
  prefix: 'automation',
  title: 'Automation connector',
  serviceGroup: 'device',
  routes,
  collections: {
    [RECIPIENTS]: recipientRecord,
    [CAPTURED_MAIL]: capturedMailRecord,
  },
  controlPlane: mailControlRouter,
  setup: setupRecipientIndexes,
  teardown: releaseMailWaiters,
};
