import type { EmuContext } from '../../context.js';
import { isPlainObject } from '../../store/index.js';
import { serviceConfiguration } from '../tekton/app-configs.js';

/** The prefix the platform gives the series it extracts from samples by itself (`auto~temperature`). */
export const AUTO_PREFIX = 'auto~';

/** Data sample keys the platform auto-extracts: Latin letters, digits, underscores and dashes. */
const AUTO_KEY = /^[a-zA-Z0-9_-]+$/;

/**
 * The application version's time-series settings, read from its configuration in the application configuration
 * service under `epts` (as `ecr` is for the registry): `{ "autoExtract": boolean }`. A version without them extracts
 * automatically, as the platform does for a new application (its console shows "Autoextract" checked).
 */
export function autoExtracts(ctx: EmuContext, appVersionName: string): boolean {
  const settings = serviceConfiguration(ctx, appVersionName, 'epts');
  if (!isPlainObject(settings) || typeof settings.autoExtract !== 'boolean') return true;
  return settings.autoExtract;
}

/** The platform's auto-extraction: each numeric top-level field becomes series `auto~<field>` with the value `value`. */
export function autoExtracted(sample: Record<string, unknown>, skip: string | undefined): Array<[string, number]> {
  const found: Array<[string, number]> = [];
  for (const [field, value] of Object.entries(sample)) {
    if (field !== skip && typeof value === 'number' && Number.isFinite(value) && AUTO_KEY.test(field)) {
      found.push([`${AUTO_PREFIX}${field}`, value]);
    }
  }
  return found;
}
