// Command invocation (cex): commands to endpoints and their results.
import type { ServiceDescriptor } from '../../contract.js';
import { startDeadlines, stopDeadlines } from './commands.js';
import { routes } from './routes.js';
import { commandRecord } from './schemas.js';
import { releaseWaiters } from './wait.js';

export const commandInvocation: ServiceDescriptor = {
  prefix: 'cex',
  title: 'Command invocation',
  serviceGroup: 'device',
  routes,
  collections: {
    commands: commandRecord,
  },
  setup(ctx) {
    startDeadlines(ctx);
  },
  teardown(ctx) {
    stopDeadlines(ctx);
    releaseWaiters(ctx);
  },
  // 1: awaitTimeout and commandTtl (a 60 s TTL by default); 2: waitTimeout and commandRetentionTtl.
  compat: { revisions: ['1', '2'], default: '2' },
};
