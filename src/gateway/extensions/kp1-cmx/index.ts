// KP1 extension cmx (configuration management): the device side of the endpoint configuration registry.
import { configurationFor, pushPendingConfiguration, reportApplied } from '../../../services/ecr/device.js';
import type { Kp1Extension } from '../../extension.js';
import { appliedReportOf, configRequestOf } from './exchange.js';

/** Endpoint configuration (spec 4), kept in the endpoint configuration registry. */
export const cmx: Kp1Extension = {
  name: 'cmx',
  resources: [
    {
      path: 'config/json',
      handle({ ctx, endpoint, payload }) {
        const { configId, observe } = configRequestOf(payload);
        return { payload: configurationFor(ctx, endpoint, configId), observe };
      },
    },
    {
      path: 'applied/json',
      async handle({ ctx, endpoint, payload }) {
        await reportApplied(ctx, endpoint, appliedReportOf(payload));
        return {};
      },
    },
  ],
  connected(ctx, endpoint, told) {
    if (!told.has('cmx/config/json')) pushPendingConfiguration(ctx, endpoint);
  },
};
