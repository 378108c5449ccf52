import { EventEmitter } from 'node:events';
import type { EmuContext } from './contract.js';

export type { Clock, DevicePush, EmuContext, PushTarget, RealmDirectory } from './contract.js';

export function runtimeOf<T>(ctx: EmuContext, key: string, create: () => T): T {
  let value = ctx.runtime.get(key) as T | undefined;
  if (value === undefined) ctx.runtime.set(key, (value = create()));
  return value;
}

export function createEventBus(): EventEmitter {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return events;
}
