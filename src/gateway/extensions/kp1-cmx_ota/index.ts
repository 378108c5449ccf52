// KP1 extension cmx_ota (software over the air): the device side of the over-the-air orchestrator.
import { reportSoftwareApplied, softwareFor, softwareOffer } from '../../../services/otao/rollout.js';
import type { Kp1Extension } from '../../extension.js';
import { appliedReportOf, configRequestOf } from '../kp1-cmx/exchange.js';

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
  // An offer is never the version the endpoint runs (software cannot list its own version in upgradableFrom), so
  // any offer is one the device has not applied yet.
  connected(ctx, endpoint, told) {
    if (told.has('cmx_ota/config/json')) return;
    const offer = softwareOffer(ctx, endpoint);
    if (offer.configId !== '') ctx.devices.push(endpoint, 'cmx_ota', 'config/json', offer);
  },
};
