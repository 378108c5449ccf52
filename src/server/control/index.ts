import type { Router } from 'express';
import type { EmuContext } from '../../context.js';
import { clockRoutes } from './clock.js';
import { eventRoutes } from './events.js';
import { faultRoutes } from './faults.js';
import { journalRoutes } from './journal.js';
import { mountControlRoutes, type ControlHooks, type ControlRoute } from './route.js';
import { snapshotRoutes } from './snapshots.js';
import { stateRoutes } from './state.js';
import { tokenRoutes } from './token.js';

export type { ControlHooks, ControlRoute };
export { controlGuard } from './guard.js';

/** Every route of the emulator's own control plane under `/_emu` (documented in docs/control-plane.md). */
export const controlRoutes: readonly ControlRoute[] = [
  ...stateRoutes,
  ...tokenRoutes,
  ...snapshotRoutes,
  ...clockRoutes,
  ...faultRoutes,
  ...journalRoutes,
  ...eventRoutes,
];

/** The control plane's router: never mixed into the service routes; the guard in front of it is mounted by the app. */
export function controlRouter(ctx: EmuContext, hooks: ControlHooks): Router {
  return mountControlRoutes(ctx, hooks, controlRoutes);
}
