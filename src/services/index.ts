import type { ServiceDescriptor } from '../server/service.js';
import { appManager } from './app-manager/index.js';
import { commandInvocation } from './cex/index.js';
import { endpointRegister } from './epr/index.js';
import { tenantManager } from './tenant-manager/index.js';

/**
 * The one list of services. The server mounts these, `call --list` prints them, the operations test checks them.
 * Order matters twice: fixtures seed in this order, and on the bare `/api/v1` the first service wins a shared path.
 */
export const services: readonly ServiceDescriptor[] = [tenantManager, appManager, endpointRegister, commandInvocation];
