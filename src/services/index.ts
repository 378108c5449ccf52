import type { ServiceDescriptor } from '../server/contract.js';
import { appManager } from './app-manager/index.js';
import { analyticsFacade } from './asf/index.js';
import { automationConnector } from './automation/index.js';
import { commandInvocation } from './cex/index.js';
import { endpointRegister } from './epr/index.js';
import { tenantManager } from './tenant-manager/index.js';
import { lorawanConnector } from './ttnc/index.js';

/**
 * The one list of services. The server mounts these, `call --list` prints them, the OpenAPI document and the
 * operations test read them. The order is only the order of listings: seeding follows each descriptor's
 * `seedsAfter`, and a bare `/api/v1` path two services share goes to the one that `ownsBarePath`.
 */
export const services: readonly ServiceDescriptor[] = [tenantManager, appManager, endpointRegister, commandInvocation, automationConnector, lorawanConnector, analyticsFacade];
