// KP1 extension tsx (time): the current time for a device.
import { describeValue, invalidPayload, optionalObject, type Kp1Extension } from '../../extension.js';

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    throw invalidPayload(
      `timezone must be an IANA time zone name like "Europe/Berlin" or "UTC"; got ${JSON.stringify(timeZone)}.`,
    );
  }
}

/** The wall-clock time in the zone as ISO 8601 with its UTC offset: `2024-04-26T17:41:07.123+02:00`. */
export function localTime(now: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    zoneFormat(timeZone)
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(
    +parts.year,
    +parts.month - 1,
    +parts.day,
    +parts.hour,
    +parts.minute,
    +parts.second,
    now.getUTCMilliseconds(),
  );
  const offset = Math.round((wall - now.getTime()) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  return (
    `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.` +
    `${pad(now.getUTCMilliseconds(), 3)}${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  );
}

/**
 * Time (spec 4 leaves the format open; docs/devices.md): `{ "timestamp": <epoch ms>, "time": "<ISO 8601 UTC>" }`,
 * plus `timezone` and `localTime` (ISO 8601 with offset) when the request names a zone.
 */
export const tsx: Kp1Extension = {
  name: 'tsx',
  resources: [
    {
      path: '',
      handle({ ctx, payload }) {
        const { timezone } = optionalObject(payload, ['timezone'], 'tsx');
        const now = ctx.clock.now();
        const answer = { timestamp: now.getTime(), time: now.toISOString() };
        if (timezone === undefined) return { payload: answer };
        if (typeof timezone !== 'string')
          throw invalidPayload(`timezone must be a string like "Europe/Berlin"; got ${describeValue(timezone)}.`);
        return { payload: { ...answer, timezone, localTime: localTime(now, timezone) } };
      },
    },
  ],
};
