import express, { type Router } from 'express';
import type { EmuContext } from '../context.js';
import { routeTableRouter } from '../server/router.js';
import { deviceRoutes } from './device-routes.js';
import type { DeviceTarget } from './devices.js';
import { connectionRoutes } from './online.js';
import { dashboardPageRouter } from './page.js';

/**
 * The dashboard and what it needs beside the control plane, mounted at `/_emu`: its files (page.ts), the online
 * state of the endpoints (online.ts) and the simulated devices and metadata writes (device-routes.ts), the last two
 * as route tables like the services'.
 */
export function uiRouter(ctx: EmuContext, target: () => DeviceTarget): Router {
  return express
    .Router()
    .use(dashboardPageRouter(), routeTableRouter(ctx, [...connectionRoutes, ...deviceRoutes(target)]));
}
