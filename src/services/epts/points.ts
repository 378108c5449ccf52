import type { EmuContext } from '../../context.js';
import { isPlainObject, seriesCollection, type Mutation, type Series, type SeriesAppend } from '../../store/index.js';
import { isoOf } from './time.js';

export const TIME_SERIES_POINTS = seriesCollection('time-series-points');

/** A data point as the API shows it (spec 2). */
export interface DataPoint {
  timestamp: string;
  values: Record<string, unknown>;
}

/** A data point to write: its time in epoch milliseconds. */
export interface NewPoint {
  time: number;
  values: Record<string, unknown>;
}

/** Points to write, by endpoint id, then by series name. */
export type PointBatch = Map<string, Map<string, NewPoint[]>>;

/** Endpoint ids have no `/` (ID_PATTERN), so the first `/` ends it. */
const seriesId = (endpointId: string, name: string) => `${endpointId}/${name}`;

/**
 * What the store keeps per point: a series with the single value `value` (what devices send most) keeps the bare
 * primitive, so that a number costs 8 bytes rather than an object; anything else keeps its values object.
 */
function encode(values: Record<string, unknown>): unknown {
  const keys = Object.keys(values);
  if (keys.length === 1 && keys[0] === 'value' && !(typeof values.value === 'object' && values.value !== null))
    return values.value;
  return values;
}

const decode = (stored: unknown): Record<string, unknown> => (isPlainObject(stored) ? stored : { value: stored });

export function addPoint(batch: PointBatch, endpointId: string, name: string, point: NewPoint): void {
  let bySeries = batch.get(endpointId);
  if (!bySeries) batch.set(endpointId, (bySeries = new Map()));
  let points = bySeries.get(name);
  if (!points) bySeries.set(name, (points = []));
  points.push(point);
}

/**
 * The batch's points as one mutation (an append to each endpoint's series): the log holds the new points only, whatever
 * the size of the series, and names the collection once for all of them.
 */
export function appendMutations(batch: PointBatch): Mutation[] {
  const appends: SeriesAppend[] = [];
  for (const [endpointId, bySeries] of batch) {
    for (const [name, points] of bySeries)
      appends.push([seriesId(endpointId, name), points.map((p) => [p.time, encode(p.values)])]);
  }
  return [TIME_SERIES_POINTS.appendsMutation(appends)];
}

const seriesOf = (ctx: EmuContext, endpointId: string, name: string): Series | undefined =>
  TIME_SERIES_POINTS.get(ctx, seriesId(endpointId, name));

const pointAt = (series: Series, index: number): DataPoint => ({
  timestamp: isoOf(series.timeAt(index)),
  values: decode(series.valueAt(index)),
});

/** The newest point of a series, or the newest strictly before `before`: a binary search at most, never a scan. */
export function lastPoint(ctx: EmuContext, endpointId: string, name: string, before?: number): DataPoint | undefined {
  const series = seriesOf(ctx, endpointId, name);
  if (!series) return undefined;
  const end = before === undefined ? series.length : series.lowerBound(before);
  return end > 0 ? pointAt(series, end - 1) : undefined;
}

/** A time window; `includeFrom`/`includeTo` say whether a point exactly at a bound is in it. */
export interface TimeRange {
  from: number;
  to: number;
  includeFrom: boolean;
  includeTo: boolean;
}

/** The index range `[start, end)` of the points of a series inside the window, found by binary search. */
function indexesIn(series: Series, range: TimeRange): [start: number, end: number] {
  const start = range.includeFrom ? series.lowerBound(range.from) : series.upperBound(range.from);
  const end = range.includeTo ? series.upperBound(range.to) : series.lowerBound(range.to);
  return [start, end];
}

/** `pointAt`'s object as JSON, written directly: the text `JSON.stringify` gives it, without the object. */
function pointJson(series: Series, index: number): string {
  const stored = series.valueAt(index);
  const values = isPlainObject(stored) ? JSON.stringify(stored) : `{"value":${JSON.stringify(stored)}}`;
  return `{"timestamp":"${isoOf(series.timeAt(index))}","values":${values}}`;
}

/**
 * The answer of `GET .../time-series/data` as the JSON texts of its chunks, each an object endpoint id → series name
 * → points, of at most `size` points: endpoints in the order given, series in the order asked, points in the asked
 * order; one endpoint's series continues in the next chunk when a chunk is full. Built lazily, so that a large window
 * is never held whole in memory, and written as text, since a read of many points spends most of its time there
 * (figure 7d).
 */
export function* dataChunkTexts(
  ctx: EmuContext,
  endpointIds: readonly string[],
  names: readonly string[],
  range: TimeRange,
  descending: boolean,
  size: number,
): Generator<string> {
  let text = '';
  let count = 0;
  for (const endpointId of endpointIds) {
    let endpointOpen = false;
    for (const name of names) {
      const series = seriesOf(ctx, endpointId, name);
      if (!series) continue;
      const [start, end] = indexesIn(series, range);
      const step = descending ? -1 : 1;
      let seriesOpen = false;
      for (let i = descending ? end - 1 : start; i >= start && i < end; i += step) {
        if (!endpointOpen) {
          text += `${text ? ',' : '{'}${JSON.stringify(endpointId)}:{`;
          endpointOpen = true;
        } else if (!seriesOpen) text += ',';
        text += seriesOpen ? `,${pointJson(series, i)}` : `${JSON.stringify(name)}:[${pointJson(series, i)}`;
        seriesOpen = true;
        if (++count === size) {
          yield `${text}]}}`;
          text = '';
          count = 0;
          endpointOpen = seriesOpen = false;
        }
      }
      if (seriesOpen) text += ']';
    }
    if (endpointOpen) text += '}';
  }
  if (count > 0) yield `${text}}`;
}
