import type { Router } from 'express';
import type { EmuContext } from '../../context.js';
import type { Route } from '../../contract.js';
import { routeTableRouter } from '../router.js';
import { clockRoutes } from './clock.js';
import { eventRoutes } from './events.js';
import { faultRoutes } from './faults.js';
import { journalRoutes } from './journal.js';
import type { ControlHooks } from './hooks.js';
import { snapshotRoutes } from './snapshots.js';
import { stateRoutes } from './state.js';
import { tokenRoutes } from './token.js';

export type { ControlHooks };
export { controlGuard } from './guard.js';

/**
 * Every route of the emulator's own control plane under `/_emu` (documented in docs/control-plane.md): `Route`
 * entries like a service's, without a scope (the guard in front of `/_emu` checks the admin token).
 */
export const controlRoutes = (hooks: ControlHooks): Route[] => [
  ...stateRoutes(hooks),
  ...tokenRoutes(hooks),
  ...snapshotRoutes(hooks),
  ...clockRoutes,
  ...faultRoutes,
  ...journalRoutes,
  ...eventRoutes,
];

/** The control plane's router: never mixed into the service routes; the guard in front of it is mounted by the app. */
export function controlRouter(ctx: EmuContext, hooks: ControlHooks): Router {
  return routeTableRouter(ctx, controlRoutes(hooks));
}
