import type { EmuContext } from '../../context.js';
import { HttpError } from '../../server/errors.js';
import { isPlainObject } from '../../store/index.js';
import { findAppConfig, serviceConfiguration } from '../tekton/app-configs.js';

/** The prefix the platform gives the series it extracts from samples by itself (`auto~temperature`). */
export const AUTO_PREFIX = 'auto~';

/** Data sample keys the platform auto-extracts: Latin letters, digits, underscores and dashes. */
const AUTO_KEY = /^[a-zA-Z0-9_-]+$/;

export const TIMESTAMP_FORMATS = ['iso8601', 'epoch-millis', 'epoch-seconds'] as const;
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

/** Where a sample's time is read: a configured path, or (none configured) `ts`/`timestamp` in either format. */
export interface TimestampSetting {
  /** Dot path into the sample (`ts`, `meta.time`). */
  path: string[];
  format: TimestampFormat;
  /** `fail`: a sample without a readable time is refused; `receipt-time`: it gets the time it was received. */
  fallback: 'fail' | 'receipt-time';
}

/** A configured series: value name → dot path into the sample (`lat` → `location.lat`). */
export interface SeriesMapping {
  name: string;
  values: Array<[string, string[]]>;
}

/**
 * An application version's time-series settings: the application configuration service's document under `epts`
 * (docs/services/time-series.md "Settings"). A version without them is a new application on the platform: no
 * auto-extraction, no configured series, the time from `ts`/`timestamp` or the receipt time.
 */
export interface EptsSettings {
  autoExtract: boolean;
  /** The emulator's own per-field series (an addition, off unless asked; the default fixtures ask). */
  fieldSeries: boolean;
  timestamp: TimestampSetting | undefined;
  timeSeries: SeriesMapping[];
}

const DEFAULTS: EptsSettings = { autoExtract: false, fieldSeries: false, timestamp: undefined, timeSeries: [] };
const SERIES_NAME = /^[a-zA-Z0-9_-]{1,100}$/;
const VALUE_NAME = /^[a-zA-Z0-9_-]{1,100}$/;
const MAX_SERIES = 100;

const pathOf = (text: unknown, where: string): string[] => {
  if (typeof text !== 'string' || !/^[^.]+(\.[^.]+){0,9}$/.test(text))
    throw new Error(`${where} must be a dot path like "location.lat" (at most 10 levels)`);
  return text.split('.');
};

function parseTimestamp(value: unknown): TimestampSetting | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw new Error('timestamp must be an object { "path", "format"?, "fallback"? }');
  const { path, format = 'iso8601', fallback = 'fail' } = value;
  if (!TIMESTAMP_FORMATS.includes(format as TimestampFormat))
    throw new Error(`timestamp.format must be one of ${TIMESTAMP_FORMATS.join(', ')}`);
  if (fallback !== 'fail' && fallback !== 'receipt-time')
    throw new Error('timestamp.fallback must be "fail" or "receipt-time"');
  return { path: pathOf(path, 'timestamp.path'), format: format as TimestampFormat, fallback };
}

function parseTimeSeries(value: unknown): SeriesMapping[] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) throw new Error('timeSeries must be an object: series name → { "values": {...} }');
  const entries = Object.entries(value);
  if (entries.length > MAX_SERIES) throw new Error(`timeSeries names more than ${MAX_SERIES} series`);
  return entries.map(([name, series]) => {
    if (!SERIES_NAME.test(name) || name.startsWith(AUTO_PREFIX))
      throw new Error(`timeSeries: "${name}" is not a series name (letters, digits, _ and -; not auto~)`);
    const values = isPlainObject(series) ? series.values : undefined;
    if (!isPlainObject(values) || Object.keys(values).length === 0 || Object.keys(values).length > 100)
      throw new Error(`timeSeries.${name}.values must map 1 to 100 value names to dot paths`);
    const bad = Object.keys(values).find((v) => !VALUE_NAME.test(v));
    if (bad !== undefined)
      throw new Error(`timeSeries.${name}.values: "${bad}" is not a value name (letters, digits, _ and -)`);
    return { name, values: Object.entries(values).map(([v, p]) => [v, pathOf(p, `timeSeries.${name}.values.${v}`)]) };
  });
}

function parseSettings(settings: unknown): EptsSettings {
  if (settings === undefined) return DEFAULTS;
  if (!isPlainObject(settings)) throw new Error('it is not a JSON object');
  const flag = (key: 'autoExtract' | 'fieldSeries') => {
    const value = settings[key] ?? false;
    if (typeof value !== 'boolean') throw new Error(`${key} must be true or false`);
    return value;
  };
  return {
    autoExtract: flag('autoExtract'),
    fieldSeries: flag('fieldSeries'),
    timestamp: parseTimestamp(settings.timestamp),
    timeSeries: parseTimeSeries(settings.timeSeries),
  };
}

/** Parsed once per stored application configuration record (records are replaced on every write). */
const parsed = new WeakMap<object, EptsSettings | Error>();

/** The version's settings; 503 naming the fault when its `epts` document is unusable (as the registry does for ecr). */
export function eptsSettings(ctx: EmuContext, appVersionName: string): EptsSettings {
  const record = findAppConfig(ctx, appVersionName);
  if (!record) return DEFAULTS;
  let settings = parsed.get(record);
  if (!settings) {
    try {
      settings = parseSettings(serviceConfiguration(ctx, appVersionName, 'epts'));
    } catch (err) {
      settings = err as Error;
    }
    parsed.set(record, settings);
  }
  if (settings instanceof Error)
    throw new HttpError(
      503,
      `The time-series settings of application version ${appVersionName} (its "epts" configuration in the ` +
        `application configuration service) are unusable: ${settings.message}.`,
    );
  return settings;
}

/**
 * The platform's auto-extraction: each numeric top-level field becomes series `auto~<field>` with the value `value`.
 */
export function autoExtracted(sample: Record<string, unknown>, skip: string | undefined): Array<[string, number]> {
  const found: Array<[string, number]> = [];
  for (const field of Object.keys(sample)) {
    const value = sample[field];
    if (field !== skip && typeof value === 'number' && Number.isFinite(value) && AUTO_KEY.test(field)) {
      found.push([`${AUTO_PREFIX}${field}`, value]);
    }
  }
  return found;
}

/** The value at a dot path of a sample, or undefined. */
export function valueAt(sample: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = sample;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** The configured series a sample makes a point of: those whose every value path is in the sample. */
export function mappedValues(
  sample: Record<string, unknown>,
  mappings: readonly SeriesMapping[],
): Array<[string, Record<string, unknown>]> {
  const found: Array<[string, Record<string, unknown>]> = [];
  for (const { name, values } of mappings) {
    const point: Record<string, unknown> = {};
    let complete = true;
    for (const [valueName, path] of values) {
      const value = valueAt(sample, path);
      if (value === undefined) complete = false;
      else point[valueName] = value;
    }
    if (complete) found.push([name, point]);
  }
  return found;
}
