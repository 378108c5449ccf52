// KP1 extension cmx (configuration management): the device side of the endpoint configuration registry.
import { checkConfigName, isReservedConfigName } from '../../../services/ecr/config-name.js';
import { configurationFor, pushPendingConfigurations, reportApplied } from '../../../services/ecr/device.js';
import type { Kp1Extension, Kp1Resource } from '../../extension.js';
import { appliedReportOf, configRequestOf } from './exchange.js';

const nameOf = (params: Record<string, string>) =>
  params.configName === undefined ? undefined : checkConfigName(params.configName);

/** `config/json` and `applied/json`, of the default configuration or (with `/<configName>`) of a named one. */
const exchange = (suffix: string): Kp1Resource[] => [
  {
    path: `config/json${suffix}`,
    // `config/json/status` is the push topic of the default configuration, never a request for a name.
    accepts: (params) => params.configName === undefined || !isReservedConfigName(params.configName),
    handle({ ctx, endpoint, params, payload }) {
      const { configId, observe } = configRequestOf(payload);
      return { payload: configurationFor(ctx, endpoint, configId, nameOf(params)), observe };
    },
  },
  {
    path: `applied/json${suffix}`,
    accepts: (params) => params.configName === undefined || !isReservedConfigName(params.configName),
    async handle({ ctx, endpoint, params, payload }) {
      await reportApplied(ctx, endpoint, appliedReportOf(payload), nameOf(params));
      return {};
    },
  },
];

/** Endpoint configuration (spec 4), kept in the endpoint configuration registry; named ones per 7/CMP use case 3. */
export const cmx: Kp1Extension = {
  name: 'cmx',
  resources: [...exchange(''), ...exchange('/{configName}')],
  connected(ctx, endpoint, told) {
    pushPendingConfigurations(ctx, endpoint, told);
  },
};
