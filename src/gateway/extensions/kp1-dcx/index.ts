// KP1 extension dcx (data collection): samples into the endpoint time series service.
import type { EmuContext } from '../../../context.js';
import { recordSamplePoints, type SamplePoint } from '../../../services/epts/writes.js';
import { parseIsoTime } from '../../../services/epts/time.js';
import { autoExtracted, autoExtracts } from '../../../services/epts/settings.js';
import { describeValue, invalidPayload, isPlainObject, type Kp1Extension } from '../../extension.js';

/** The fields a sample's time is read from (spec 4: examples use either); without one, the receive time. */
const TIME_FIELDS = ['ts', 'timestamp'] as const;

function timeOf(value: unknown, field: string, where: string): number {
  const time = typeof value === 'number' ? value : typeof value === 'string' ? parseIsoTime(value) : undefined;
  if (time === undefined || !Number.isFinite(new Date(time).getTime())) {
    throw invalidPayload(
      `${where}: ${field} must be epoch milliseconds or an ISO 8601 datetime with a zone (like 2024-04-26T15:41:07Z); got ${describeValue(value)}.`,
    );
  }
  return Math.trunc(time);
}

function checkSeriesName(name: string, where: string): void {
  if (name === '' || name.includes(',')) {
    throw invalidPayload(
      `${where}: "${name}" cannot name a time series (it must be non-empty and without commas, which separate names in queries).`,
    );
  }
}

/**
 * One sample → one point per field: a field holding an object becomes a series of that name whose values are the
 * object's keys (`"position": {"lat": 52.5, "lon": 13.4}`); any other field a series of that name with the one
 * value `value` (`"temperature": 21.5`). `ts` or `timestamp` gives the time. With the application's auto-extraction
 * on (`epts.autoExtract`, the default), each numeric field is also a point of `auto~<field>`, as on the platform.
 */
function pointsOf(sample: unknown, where: string, receivedAt: number, auto: boolean): SamplePoint[] {
  // 2/DCP: "Data samples can be of any valid JSON type"; only objects of named values feed time series.
  if (!isPlainObject(sample)) return [];
  const timeFields = TIME_FIELDS.filter((f) => Object.hasOwn(sample, f));
  if (timeFields.length > 1) throw invalidPayload(`${where} has both ts and timestamp; give its time in one of them.`);
  const time = timeFields.length === 1 ? timeOf(sample[timeFields[0]], timeFields[0], where) : receivedAt;
  const points: SamplePoint[] = [];
  for (const [field, value] of Object.entries(sample)) {
    if (field === timeFields[0]) continue;
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
  if (auto) {
    for (const [series, value] of autoExtracted(sample, timeFields[0]))
      points.push({ series, point: { time, values: { value } } });
  }
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

const receiveTime = (ctx: EmuContext) => ctx.clock.now().getTime();

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
        const receivedAt = receiveTime(ctx);
        const auto = autoExtracts(ctx, endpoint.appVersion.name);
        const samples = Array.isArray(payload) ? payload : [payload];
        const points = samples.flatMap((sample, i) =>
          pointsOf(sample, Array.isArray(payload) ? `Sample [${i}]` : 'The sample', receivedAt, auto),
        );
        if (points.length > 0) await recordSamplePoints(ctx, endpoint, points);
        return {};
      },
    },
    {
      path: 'plain/{metric}',
      payload: 'raw',
      async handle({ ctx, endpoint, params, raw }) {
        checkSeriesName(params.metric, 'The metric');
        await recordSamplePoints(ctx, endpoint, [
          { series: params.metric, point: { time: receiveTime(ctx), values: { value: plainValue(raw) } } },
        ]);
        return {};
      },
    },
  ],
};
