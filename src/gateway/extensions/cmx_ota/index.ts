import { reportSoftwareApplied, softwareFor } from '../../../services/otao/rollout.js';
import type { Kp1Extension } from '../../extension.js';
import { appliedReportOf, configRequestOf } from '../cmx/exchange.js';

/** Software (spec 4): the `cmx` exchange for what the over-the-air orchestrator offers; `configId` is the version. */
export const cmxOta: Kp1Extension = {
  name: 'cmx_ota',
  resources: [
    {
      path: 'config/json',
      handle({ ctx, endpoint, payload }) {
        const { configId, observe } = configRequestOf(payload);
        return { payload: softwareFor(ctx, endpoint, configId), observe };
      },
    },
    {
      path: 'applied/json',
      async handle({ ctx, endpoint, payload }) {
        await reportSoftwareApplied(ctx, endpoint, appliedReportOf(payload));
        return {};
      },
    },
  ],
};
