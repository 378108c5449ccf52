// Command invocation (cex): commands to endpoints and their results.
import { DATE_TIME, tenantRecord, type ServiceDescriptor } from '../../contract.js';
import { COMMAND_TYPE_PATTERN, startDeadlines, stopDeadlines } from './commands.js';
import { routes } from './routes.js';
import { releaseWaiters } from './wait.js';

export const commandInvocation: ServiceDescriptor = {
  prefix: 'cex',
  title: 'Command invocation',
  serviceGroup: 'device',
  routes,
  collections: {
    commands: tenantRecord(['appName', 'commandId', 'commandType', 'endpointId', 'status', 'createdAt', 'updatedAt', 'retainUntil'], {
      commandId: { type: 'integer', minimum: 1 },
      commandType: { type: 'string', pattern: COMMAND_TYPE_PATTERN.source },
      status: { enum: ['PENDING', 'EXECUTED', 'EXPIRED'] },
      statusCode: { type: 'integer' },
      reasonPhrase: { type: 'string' },
      createdAt: DATE_TIME,
      updatedAt: DATE_TIME,
      expiresAt: DATE_TIME,
      retainUntil: DATE_TIME,
    }),
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
