import type { EmuContext } from '../../context.js';
import type { Application } from '../app-manager/applications.js';
import { offersOfApplication, pushChangedOffers } from './rollout.js';
import { scheduleRolloutDates } from './rollout-dates.js';
import { newSoftware, SOFTWARE, softwareId, updatedSoftware, type Software, type SoftwareInput } from './software.js';

/** A software change, then a push to every endpoint of the application whose offer it changed. */
async function changeWithPushes<T>(ctx: EmuContext, appName: string, change: () => Promise<T>): Promise<T> {
  const before = offersOfApplication(ctx, appName);
  const result = await change();
  pushChangedOffers(ctx, appName, before);
  scheduleRolloutDates(ctx);
  return result;
}

export function createSoftware(
  ctx: EmuContext,
  app: Application,
  version: string,
  input: SoftwareInput,
): Promise<Software> {
  const software = newSoftware(ctx, app, version, input, ctx.clock.nowIso());
  return changeWithPushes(ctx, app.name, async () => {
    await SOFTWARE.put(ctx, softwareId(software), software);
    return software;
  });
}

export function updateSoftware(
  ctx: EmuContext,
  app: Application,
  current: Software,
  input: SoftwareInput,
): Promise<Software> {
  const software = updatedSoftware(ctx, app, current, input, ctx.clock.nowIso());
  return changeWithPushes(ctx, app.name, async () => {
    await SOFTWARE.put(ctx, softwareId(software), software);
    return software;
  });
}

export function deleteSoftware(ctx: EmuContext, app: Application, software: Software): Promise<void> {
  return changeWithPushes(ctx, app.name, () => SOFTWARE.delete(ctx, softwareId(software)));
}
