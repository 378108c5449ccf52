// Analytics facade (asf): analytics pipelines.
import { tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { PIPELINES } from './pipelines.js';
import { routes } from './routes.js';

export const analyticsFacade: ServiceDescriptor = {
  prefix: 'asf',
  title: 'Analytics facade',
  serviceGroup: 'device',
  routes,
  collections: { [PIPELINES.name]: tenantRecord(['pipelineId', 'storedName', 'createdAt', 'updatedAt']) },
};
