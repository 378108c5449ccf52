// Endpoint time series (epts): time-series definitions and the samples endpoints send.
import type { ServiceDescriptor } from '../../contract.js';
import { TIME_SERIES } from './definitions.js';
import { definitionFixtures } from './fixtures.js';
import { TIME_SERIES_POINTS } from './points.js';
import { drainSampleBatches } from './sample-batches.js';
import { routes } from './routes.js';
import { definitionRecord } from './schemas.js';

export const endpointTimeSeries: ServiceDescriptor = {
  prefix: 'epts',
  title: 'Endpoint time series',
  serviceGroup: 'device',
  routes,
  collections: { [TIME_SERIES.name]: definitionRecord },
  series: [TIME_SERIES_POINTS.name],
  fixtures: [definitionFixtures],
  seedsAfter: ['app-manager'],
  teardown: drainSampleBatches,
};
