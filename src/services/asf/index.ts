// Analytics facade (asf): analytics pipelines.
import type { ServiceDescriptor } from '../../contract.js';
import { PIPELINES } from './pipelines.js';
import { routes } from './routes.js';
import { pipelineRecord } from './schemas.js';

export const analyticsFacade: ServiceDescriptor = {
  prefix: 'asf',
  title: 'Analytics facade',
  serviceGroup: 'device',
  routes,
  collections: { [PIPELINES.name]: pipelineRecord },
};
