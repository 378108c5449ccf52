import type { ServiceDescriptor } from '../contract.js';
import { appManager } from './app-manager/index.js';
import { analyticsFacade } from './asf/index.js';
import { automationConnector } from './automation/index.js';
import { binaryDataCollection } from './bcx/index.js';
import { credentialsManager } from './ccm/index.js';
import { commandInvocation } from './cex/index.js';
import { endpointConfiguration } from './ecr/index.js';
import { endpointRegister } from './epr/index.js';
import { endpointTimeSeries } from './epts/index.js';
import { identityAndAccess } from './iam/index.js';
import { otaOrchestrator } from './otao/index.js';
import { applicationConfiguration } from './tekton/index.js';
import { tenantManager } from './tenant-manager/index.js';
import { lorawanConnector } from './ttnc/index.js';

/**
 * The one list of services. The server mounts these, `call --list` prints them, the OpenAPI document and the
 * operations test read them. The order is only the order of listings (the house plan's table): seeding follows
 * each descriptor's `seedsAfter`, and a bare `/api/v1` path two services share goes to the one that `ownsBarePath`.
 */
export const services: readonly ServiceDescriptor[] = [
  automationConnector,
  endpointRegister,
  endpointConfiguration,
  commandInvocation,
  otaOrchestrator,
  binaryDataCollection,
  endpointTimeSeries,
  lorawanConnector,
  applicationConfiguration,
  analyticsFacade,
  tenantManager,
  appManager,
  credentialsManager,
  identityAndAccess,
];
