import type { EmuContext } from '../../context.js';
import { badRequest, notFound } from '../../server/errors.js';
import { findEndpoint } from '../epr/endpoints.js';
import { definitionsNamed, type Definition } from './definitions.js';
import { addPoint, appendMutations, type PointBatch } from './points.js';
import type { TimeSeriesBody } from './schemas.js';
import { parseIsoTime } from './time.js';

export type { TimeSeriesBody };

/** Where a write lands: an application, and for the `app-versions` form also the version every endpoint must be in. */
export interface WriteTarget {
  tenantId: string;
  applicationName: string;
  appVersionName?: string;
}

function checkValues(definition: Definition, values: Record<string, unknown>, where: string): void {
  const unknown = Object.keys(values).filter((v) => !definition.values.includes(v));
  if (unknown.length > 0) {
    throw badRequest(
      `${where}.values has ${unknown.join(', ')}, not a value of time series ${definition.name} (its values: ` +
        `${definition.values.join(', ')}).`,
    );
  }
  const missing = definition.values.filter((v) => !Object.hasOwn(values, v));
  if (missing.length > 0) {
    throw badRequest(
      `${where}.values lacks ${missing.join(', ')} of time series ${definition.name}; send null for a value ` +
        `that is not known.`,
    );
  }
}

function endpointsOutside(ctx: EmuContext, target: WriteTarget, endpointIds: string[]): string[] {
  return endpointIds.filter((id) => {
    const endpoint = findEndpoint(ctx, target.tenantId, id);
    return (
      !endpoint ||
      endpoint.appName !== target.applicationName ||
      (target.appVersionName !== undefined && endpoint.appVersion.name !== target.appVersionName)
    );
  });
}

/**
 * `PUT .../time-series/data`: every point must match its series' definition exactly (each value named, null
 * allowed), every endpoint must be the application's; then all points are written in one commit, or none.
 * A point at the time of a stored one replaces it.
 */
export async function writeTimeSeriesData(ctx: EmuContext, target: WriteTarget, body: TimeSeriesBody): Promise<void> {
  const names = [...new Set(Object.values(body).flatMap((bySeries) => Object.keys(bySeries)))];
  const definitions = new Map(definitionsNamed(ctx, target.applicationName, names).map((d) => [d.name, d]));
  const batch: PointBatch = new Map();
  for (const [endpointId, bySeries] of Object.entries(body)) {
    for (const [name, points] of Object.entries(bySeries)) {
      points.forEach((point, i) => {
        const where = `${endpointId}.${name}[${i}]`;
        const time = parseIsoTime(point.timestamp);
        if (time === undefined)
          throw badRequest(
            `${where}.timestamp must be an ISO 8601 datetime with a zone, like 2024-04-26T15:41:07Z; got ` +
              `"${point.timestamp}".`,
          );
        checkValues(definitions.get(name)!, point.values, where);
        addPoint(batch, endpointId, name, { time, values: point.values });
      });
    }
  }
  const outside = endpointsOutside(ctx, target, Object.keys(body));
  if (outside.length > 0) {
    const where = target.appVersionName
      ? `application version ${target.appVersionName}`
      : `application ${target.applicationName}`;
    throw notFound(`No endpoint ${outside.join(', ')} in ${where}.`);
  }
  if (batch.size > 0) await ctx.store.commit(appendMutations(batch));
}
