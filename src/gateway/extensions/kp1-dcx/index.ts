// KP1 extension dcx (data collection): samples into the endpoint time series service.
import { recordSamplePoints, type SamplePoint } from '../../../services/epts/sample-batches.js';
import { parseIsoTime } from '../../../services/epts/time.js';
import {
  autoExtracted,
  eptsSettings,
  mappedValues,
  valueAt,
  type EptsSettings,
  type TimestampFormat,
  type TimestampSetting,
} from '../../../services/epts/settings.js';
import { describeValue, invalidPayload, isPlainObject, type Kp1Extension } from '../../extension.js';

const ISO_TEXT = 'an ISO 8601 datetime with a zone (like 2024-04-26T15:41:07Z)';
const FORMAT_TEXT: Record<TimestampFormat | 'any', string> = {
  any: `epoch milliseconds or ${ISO_TEXT}`,
  iso8601: `${ISO_TEXT} (epts.timestamp.format)`,
  'epoch-millis': 'epoch milliseconds (epts.timestamp.format)',
  'epoch-seconds': 'epoch seconds (epts.timestamp.format)',
};

/** A time in the configured format; without one, epoch milliseconds or ISO 8601. */
function readTime(value: unknown, format: TimestampFormat | undefined): number | undefined {
  if (typeof value === 'number')
    return format === 'iso8601' ? undefined : format === 'epoch-seconds' ? value * 1000 : value;
  if (typeof value === 'string' && (format === undefined || format === 'iso8601')) return parseIsoTime(value);
  return undefined;
}

function timeOf(value: unknown, field: string, where: string, format?: TimestampFormat): number {
  const time = readTime(value, format);
  if (time === undefined || !Number.isFinite(new Date(time).getTime())) {
    throw invalidPayload(`${where}: ${field} must be ${FORMAT_TEXT[format ?? 'any']}; got ${describeValue(value)}.`);
  }
  return Math.trunc(time);
}

function checkSeriesName(name: string, where: string): void {
  if (name === '' || name.includes(',')) {
    throw invalidPayload(
      `${where}: "${name}" cannot name a time series (it must be non-empty and without commas, which separate ` +
        `names in queries).`,
    );
  }
}

/**
 * The sample's time and the top-level field it came from. With a configured `epts.timestamp`: its path, in its
 * format; a sample without it fails or gets the receipt time, as its fallback says. Without one: `ts` or
 * `timestamp` (epoch milliseconds or ISO 8601), else the receipt time.
 */
function sampleTime(
  sample: Record<string, unknown>,
  where: string,
  receivedAt: number,
  setting: TimestampSetting | undefined,
): { time: number; field: string | undefined } {
  if (setting) {
    const value = valueAt(sample, setting.path);
    const field = setting.path.length === 1 ? setting.path[0] : undefined;
    const shown = setting.path.join('.');
    if (value !== undefined) return { time: timeOf(value, shown, where, setting.format), field };
    if (setting.fallback === 'receipt-time') return { time: receivedAt, field };
    throw invalidPayload(
      `${where} has no ${shown}, where the application's time-series settings read the time (epts.timestamp; ` +
        `fallback "fail").`,
    );
  }
  // The fields a sample's time is read from (spec 4: examples use either); without one, the receive time.
  const hasTs = Object.hasOwn(sample, 'ts');
  const hasTimestamp = Object.hasOwn(sample, 'timestamp');
  if (hasTs && hasTimestamp) throw invalidPayload(`${where} has both ts and timestamp; give its time in one of them.`);
  const field = hasTs ? 'ts' : hasTimestamp ? 'timestamp' : undefined;
  return { time: field === undefined ? receivedAt : timeOf(sample[field], field, where), field };
}

/**
 * One sample → points, as the version's time-series settings say (docs/services/time-series.md "Settings"): each
 * configured series whose value paths are all in the sample; with `autoExtract`, each numeric top-level field as
 * `auto~<field>`, as on the platform; with the emulator's `fieldSeries`, one point per field: a field holding an
 * object a series of that name whose values are the object's keys, any other field a series with the value `value`.
 */
function pointsOf(sample: unknown, where: string, receivedAt: number, settings: EptsSettings): SamplePoint[] {
  // 2/DCP: "Data samples can be of any valid JSON type"; only objects of named values feed time series.
  if (!isPlainObject(sample)) return [];
  const { time, field: timeField } = sampleTime(sample, where, receivedAt, settings.timestamp);
  const points: SamplePoint[] = [];
  for (const [series, values] of mappedValues(sample, settings.timeSeries))
    points.push({ series, point: { time, values } });
  if (settings.autoExtract) {
    for (const [series, value] of autoExtracted(sample, timeField))
      points.push({ series, point: { time, values: { value } } });
  }
  if (settings.fieldSeries) points.push(...fieldPoints(sample, where, time, timeField));
  return points;
}

/** The emulator's per-field series (`epts.fieldSeries`). */
function fieldPoints(
  sample: Record<string, unknown>,
  where: string,
  time: number,
  timeField: string | undefined,
): SamplePoint[] {
  const points: SamplePoint[] = [];
  for (const field of Object.keys(sample)) {
    if (field === timeField) continue;
    const value = sample[field];
    checkSeriesName(field, where);
    if (isPlainObject(value)) {
      if (Object.keys(value).length === 0)
        throw invalidPayload(`${where}.${field} is an empty object: a series needs at least one value.`);
      points.push({ series: field, point: { time, values: value } });
    } else {
      points.push({ series: field, point: { time, values: { value } } });
    }
  }
  if (points.length === 0) throw invalidPayload(`${where} has no values besides its time: nothing to record.`);
  return points;
}

/** A bare number or string; a quoted JSON string is unquoted, anything else is kept as text. */
function plainValue(raw: Buffer): number | string {
  const text = raw.toString('utf8').trim();
  if (text === '')
    throw invalidPayload('The plain payload is empty: send the metric value as a bare number or string, like 21.5.');
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (text.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not a JSON string: kept as text below
    }
  }
  return text;
}

/** Data collection (spec 4): samples become points of the endpoint's application's time series (docs/devices.md). */
export const dcx: Kp1Extension = {
  name: 'dcx',
  resources: [
    {
      path: 'json',
      async handle({ ctx, endpoint, payload }) {
        if (payload === undefined)
          throw invalidPayload(
            'The json payload is empty: send a sample object or an array of them, like [{"temperature": 21.5}].',
          );
        const receivedAt = ctx.clock.nowMs();
        const settings = eptsSettings(ctx, endpoint.appVersion.name);
        const points = Array.isArray(payload)
          ? payload.flatMap((sample, i) => pointsOf(sample, `Sample [${i}]`, receivedAt, settings))
          : pointsOf(payload, 'The sample', receivedAt, settings);
        if (points.length > 0) await recordSamplePoints(ctx, endpoint, points);
        return {};
      },
    },
    {
      path: 'plain/{metric}',
      payload: 'raw',
      async handle({ ctx, endpoint, params, raw }) {
        checkSeriesName(params.metric, 'The metric');
        // The platform's DCX turns it into the sample { "<metric>": <value> }; the time series settings apply.
        const sample = { [params.metric]: plainValue(raw) };
        const settings = eptsSettings(ctx, endpoint.appVersion.name);
        const points = pointsOf(sample, 'The plain sample', ctx.clock.nowMs(), { ...settings, timestamp: undefined });
        if (points.length > 0) await recordSamplePoints(ctx, endpoint, points);
        return {};
      },
    },
  ],
};
