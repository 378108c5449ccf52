import type { Response } from 'express';
import { runtimeOf, type EmuContext } from '../../context.js';
import { COMMANDS, settledEvent, type CommandRecord } from './commands.js';

/** How a REST wait for a command ended. */
export type WaitOutcome =
  | { kind: 'settled'; command: CommandRecord | undefined }
  | { kind: 'timeout' }
  /** The client went away; nothing is left listening. */
  | { kind: 'closed' };

const waiters = (ctx: EmuContext) => runtimeOf(ctx, 'cex:waiters', () => new Set<() => void>());

/**
 * Waits until the command leaves PENDING (a device result, expiry or deletion emits its settled event), the
 * time runs out, or the client disconnects: never by polling the store. Every way out removes the listener,
 * the timer and the close handler.
 */
export function untilSettled(ctx: EmuContext, command: CommandRecord, ms: number, res: Response): Promise<WaitOutcome> {
  const current = COMMANDS.get(ctx, String(command.commandId));
  if (current?.status !== 'PENDING') return Promise.resolve({ kind: 'settled', command: current });
  if (!res.socket || res.socket.destroyed) return Promise.resolve({ kind: 'closed' });
  if (ms <= 0) return Promise.resolve({ kind: 'timeout' });
  return new Promise((resolve) => {
    const event = settledEvent(command.commandId);
    const finish = (outcome: WaitOutcome) => {
      clearTimeout(timer);
      ctx.events.off(event, onSettled);
      res.off('close', onClose);
      waiters(ctx).delete(onStop);
      resolve(outcome);
    };
    const onSettled = (settled: CommandRecord | undefined) => finish({ kind: 'settled', command: settled });
    const onClose = () => finish({ kind: 'closed' });
    const onStop = () => finish({ kind: 'timeout' });
    const timer = setTimeout(onStop, ms);
    ctx.events.on(event, onSettled);
    res.on('close', onClose);
    waiters(ctx).add(onStop);
  });
}

/** On stop: every wait answers now (202 with Location) instead of holding the shutdown. */
export function releaseWaiters(ctx: EmuContext): void {
  for (const stop of [...waiters(ctx)]) stop();
}

/** How many REST requests are waiting for a command now (tests check that none leak). */
export function waiterCount(ctx: EmuContext): number {
  return waiters(ctx).size;
}
