/**
 * ISO 8601 with a date, a time and a zone: `2024-04-26T15:41:07Z`, `...07.123+02:00`, `...07+0000` (as devices send).
 */
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Epoch milliseconds of an ISO 8601 datetime with a zone, or undefined when the text is not one. */
export function parseIsoTime(text: string): number | undefined {
  if (!ISO_DATETIME.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
let cachedDay = NaN;
let cachedDayPrefix = '';

/**
 * Times are kept in epoch milliseconds and shown as ISO 8601 UTC, exactly as `Date#toISOString` writes them. The
 * points of a read mostly share a day: its `YYYY-MM-DDT` comes from `toISOString` once and the time of day from
 * tables, which costs a fraction of a `Date` per point (figure 7d); other times go to `toISOString` itself.
 */
export function isoOf(time: number): string {
  if (!Number.isInteger(time)) return new Date(time).toISOString();
  const day = Math.floor(time / DAY_MS);
  if (day !== cachedDay) {
    const iso = new Date(time).toISOString();
    cachedDayPrefix = iso.slice(0, iso.indexOf('T') + 1);
    cachedDay = day;
  }
  const ms = time - day * DAY_MS;
  return (
    `${cachedDayPrefix}${TWO_DIGITS[Math.floor(ms / 3_600_000)]}:${TWO_DIGITS[Math.floor(ms / 60_000) % 60]}:` +
    `${TWO_DIGITS[Math.floor(ms / 1000) % 60]}.${THREE_DIGITS[ms % 1000]}Z`
  );
}
