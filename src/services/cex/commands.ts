import { runtimeOf, type EmuContext } from '../../context.js';
import { badRequest, conflict, notFound } from '../../server/errors.js';
import { CLOCK_CHANGED, COMMAND_CHANGED, type ClockChange } from '../../server/events.js';
import { collection, type Mutation } from '../../store/index.js';
import type { Endpoint } from '../epr/endpoints.js';
import { DeadlineQueue } from './deadlines.js';
import { COMMAND_TYPE_PATTERN, type CommandRecord } from './schemas.js';

export const COMMANDS = collection<CommandRecord>('commands')
  .index('endpoint', (c) => c.endpointId)
  .index('app', (c) => c.appName)
  .index('pending', (c) => (c.status === 'PENDING' ? pendingKey(c.endpointId, c.commandType) : undefined));

export { COMMAND_TYPE_PATTERN, type CommandRecord };
export type CommandStatus = CommandRecord['status'];

/** How long a new command lives: both revisions' parameters, already validated and defaulted. */
export interface CommandLifetime {
  /** Milliseconds until a pending command expires (`commandTtl`); undefined: never before retention ends. */
  ttlMs?: number;
  /** Hours until the record is deleted (`commandRetentionTtl`). */
  retentionHours: number;
}

/** What a device reports on `cex/.../result/<commandType>`, validated by the gateway. */
export interface DeviceResult {
  id: number;
  statusCode: number;
  reasonPhrase?: string;
  payload?: unknown;
}

/** The event a command's REST wait listens for: emitted once the command leaves PENDING or is deleted. */
export const settledEvent = (commandId: number) => `cex:settled:${commandId}`;

const pendingKey = (endpointId: string, commandType: string) => `${endpointId}\u0000${commandType}`;

export function checkCommandType(commandType: string): void {
  if (!COMMAND_TYPE_PATTERN.test(commandType)) {
    throw badRequest(
      `The command type must be a non-empty alphanumeric string (letters and digits only); got "${commandType}".`,
    );
  }
}

/** The status a reader sees: a pending command past its expiry is EXPIRED even in the moment before its timer runs. */
export function effectiveStatus(command: CommandRecord, now: number): CommandStatus {
  if (command.status === 'PENDING' && command.expiresAt !== undefined && Date.parse(command.expiresAt) <= now)
    return 'EXPIRED';
  return command.status;
}

/** The command fields of both revisions (the later one adds `createdAt` and `updatedAt`), status as of `now`. */
export function presentCommand(command: CommandRecord, now: number) {
  return {
    commandId: command.commandId,
    commandType: command.commandType,
    endpointId: command.endpointId,
    // Spec 2 writes the values lowercase (`pending`, `executed`); the store and the event stream keep their names.
    status: effectiveStatus(command, now).toLowerCase(),
    ...(command.statusCode !== undefined ? { statusCode: command.statusCode } : {}),
    ...(command.reasonPhrase !== undefined ? { reasonPhrase: command.reasonPhrase } : {}),
    ...(command.requestPayload !== undefined ? { requestPayload: command.requestPayload } : {}),
    ...(command.responsePayload !== undefined ? { responsePayload: command.responsePayload } : {}),
    createdAt: command.createdAt,
    updatedAt: command.updatedAt,
  };
}

/** A command of the endpoint with this type and id; anything else is as absent as a command that never existed. */
export function findCommand(
  ctx: EmuContext,
  endpoint: Endpoint,
  commandType: string,
  commandId: number,
): CommandRecord | undefined {
  const command = COMMANDS.get(ctx, String(commandId));
  return command?.endpointId === endpoint.endpointId && command.commandType === commandType ? command : undefined;
}

const byId = (a: CommandRecord, b: CommandRecord) => a.commandId - b.commandId;

export function commandsOfEndpoint(ctx: EmuContext, endpointId: string, types?: readonly string[]): CommandRecord[] {
  const all = COMMANDS.lookup(ctx, 'endpoint', endpointId);
  return (types ? all.filter((c) => types.includes(c.commandType)) : all).sort(byId);
}

export function commandsOfApplication(ctx: EmuContext, appName: string): CommandRecord[] {
  return COMMANDS.lookup(ctx, 'app', appName);
}

/** The most recently executed command of that type, or undefined. */
export function lastExecuted(ctx: EmuContext, endpoint: Endpoint, commandType: string): CommandRecord | undefined {
  let last: CommandRecord | undefined;
  for (const c of COMMANDS.lookup(ctx, 'endpoint', endpoint.endpointId)) {
    if (c.commandType !== commandType || c.status !== 'EXECUTED') continue;
    if (!last || c.updatedAt > last.updatedAt || (c.updatedAt === last.updatedAt && c.commandId > last.commandId))
      last = c;
  }
  return last;
}

/** What the device is offered on `command/<type>` (poll reply and push): every outstanding command of that type. */
export function outstandingCommands(
  ctx: EmuContext,
  endpoint: Endpoint,
  commandType: string,
): Array<{ id: number; payload?: unknown }> {
  const now = ctx.clock.nowMs();
  return COMMANDS.lookup(ctx, 'pending', pendingKey(endpoint.endpointId, commandType))
    .filter((c) => effectiveStatus(c, now) === 'PENDING')
    .sort(byId)
    .map((c) =>
      c.requestPayload === undefined ? { id: c.commandId } : { id: c.commandId, payload: c.requestPayload },
    );
}

function pushOutstanding(ctx: EmuContext, endpoint: Endpoint, commandType: string): void {
  ctx.devices.push(endpoint, 'cex', `command/${commandType}`, outstandingCommands(ctx, endpoint, commandType));
}

/** Creates a PENDING command (durably), schedules its expiry and retention, and pushes it to the device. */
export async function invokeCommand(
  ctx: EmuContext,
  endpoint: Endpoint,
  commandType: string,
  requestPayload: unknown,
  lifetime: CommandLifetime,
): Promise<CommandRecord> {
  checkCommandType(commandType);
  const now = ctx.clock.nowMs();
  const createdAt = new Date(now).toISOString();
  const commandId = COMMANDS.nextId(ctx);
  const command: CommandRecord = {
    tenantId: endpoint.tenantId,
    appName: endpoint.appName,
    commandId,
    commandType,
    endpointId: endpoint.endpointId,
    status: 'PENDING',
    ...(requestPayload !== undefined ? { requestPayload } : {}),
    createdAt,
    updatedAt: createdAt,
    ...(lifetime.ttlMs !== undefined ? { expiresAt: new Date(now + lifetime.ttlMs).toISOString() } : {}),
    retainUntil: new Date(now + lifetime.retentionHours * 3_600_000).toISOString(),
  };
  await COMMANDS.put(ctx, String(commandId), command);
  commandChanged(ctx, command, command.status);
  scheduleDeadlines(ctx, command);
  pushOutstanding(ctx, endpoint, commandType);
  return command;
}

/**
 * Records a device's results (all or none): each id must be a PENDING command of this endpoint and type.
 * Wakes the REST requests waiting for them.
 */
export async function reportResults(
  ctx: EmuContext,
  endpoint: Endpoint,
  commandType: string,
  results: DeviceResult[],
): Promise<CommandRecord[]> {
  const now = ctx.clock.nowMs();
  const updatedAt = new Date(now).toISOString();
  const executed: CommandRecord[] = [];
  for (const result of results) {
    const command = findCommand(ctx, endpoint, commandType, result.id);
    if (!command)
      throw notFound(
        `There is no command ${result.id} of type ${commandType} for this endpoint; nothing was recorded.`,
      );
    const status = effectiveStatus(command, now);
    if (status === 'EXPIRED')
      throw conflict(
        `Command ${result.id} expired at ${command.expiresAt} (its commandTtl) before this result arrived; ` +
          `nothing was recorded.`,
      );
    if (status === 'EXECUTED')
      throw conflict(`Command ${result.id} already has a result (status ${command.statusCode}); nothing was recorded.`);
    executed.push({
      ...command,
      status: 'EXECUTED',
      statusCode: result.statusCode,
      ...(result.reasonPhrase !== undefined ? { reasonPhrase: result.reasonPhrase } : {}),
      ...(result.payload !== undefined ? { responsePayload: result.payload } : {}),
      updatedAt,
    });
  }
  await ctx.store.commit(executed.map((c): Mutation => COMMANDS.putMutation(String(c.commandId), c)));
  for (const command of executed) {
    commandChanged(ctx, command, command.status);
    ctx.events.emit(settledEvent(command.commandId), command);
  }
  return executed;
}

export async function deleteCommand(ctx: EmuContext, command: CommandRecord): Promise<void> {
  await COMMANDS.delete(ctx, String(command.commandId));
  commandChanged(ctx, command, 'DELETED');
  ctx.events.emit(settledEvent(command.commandId), undefined);
}

/** Runs when a deadline of a command passes: a pending command expires; a record past its retention is deleted. */
export async function applyDeadlines(ctx: EmuContext, commandIds: Iterable<number>): Promise<void> {
  const now = ctx.clock.nowMs();
  const updatedAt = new Date(now).toISOString();
  const mutations: Mutation[] = [];
  const changed: Array<[CommandRecord, CommandStatus | 'DELETED']> = [];
  for (const commandId of new Set(commandIds)) {
    const command = COMMANDS.get(ctx, String(commandId));
    if (!command) continue;
    if (Date.parse(command.retainUntil) <= now) {
      mutations.push(COMMANDS.deleteMutation(String(commandId)));
      changed.push([command, 'DELETED']);
    } else if (command.status === 'PENDING' && effectiveStatus(command, now) === 'EXPIRED') {
      const expired: CommandRecord = { ...command, status: 'EXPIRED', updatedAt };
      mutations.push(COMMANDS.putMutation(String(commandId), expired));
      changed.push([expired, 'EXPIRED']);
    }
  }
  if (mutations.length === 0) return;
  await ctx.store.commit(mutations);
  for (const [command, status] of changed) {
    commandChanged(ctx, command, status);
    // Only a wait on a pending command is listening: a deleted one answers 202, an expired one its record.
    if (status === 'EXPIRED' || command.status === 'PENDING')
      ctx.events.emit(settledEvent(command.commandId), status === 'DELETED' ? undefined : command);
  }
}

/** For the control plane's event stream: a command appeared, changed status, or went away. */
function commandChanged(ctx: EmuContext, command: CommandRecord, status: CommandStatus | 'DELETED'): void {
  const { commandId, endpointId, tenantId, commandType } = command;
  ctx.events.emit(COMMAND_CHANGED, { commandId, endpointId, tenantId, commandType, status });
}

function deadlines(ctx: EmuContext): DeadlineQueue {
  return runtimeOf(
    ctx,
    'cex:deadlines',
    () =>
      new DeadlineQueue(
        (ids) =>
          applyDeadlines(ctx, ids).catch((err: Error) => ctx.log(`Command expiry or retention failed: ${err.message}`)),
        () => ctx.clock.nowMs(),
      ),
  );
}

/** The virtual clock moved: what became due runs now, and the move is answered once it has. */
function onClockChanged(ctx: EmuContext) {
  return runtimeOf(
    ctx,
    'cex:clock-listener',
    () => (change: ClockChange) => change.work.push(deadlines(ctx).clockMoved()),
  );
}

function scheduleDeadlines(ctx: EmuContext, command: CommandRecord): void {
  const queue = deadlines(ctx);
  if (command.status === 'PENDING' && command.expiresAt !== undefined)
    queue.add(Date.parse(command.expiresAt), command.commandId);
  queue.add(Date.parse(command.retainUntil), command.commandId);
}

/** On start: one pass over the stored commands puts their deadlines on the timer (past ones run at once). */
export function startDeadlines(ctx: EmuContext): void {
  // A stopped data directory opened by the CLI is never written: its deadlines wait for the emulator.
  if (ctx.store.isReadOnly) return;
  for (const command of COMMANDS.values(ctx)) scheduleDeadlines(ctx, command);
  ctx.events.on(CLOCK_CHANGED, onClockChanged(ctx));
}

export function stopDeadlines(ctx: EmuContext): void {
  ctx.events.off(CLOCK_CHANGED, onClockChanged(ctx));
  deadlines(ctx).stop();
}
