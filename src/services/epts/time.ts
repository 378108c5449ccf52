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

/** Times are kept in epoch milliseconds and shown as ISO 8601 UTC. */
export const isoOf = (time: number) => new Date(time).toISOString();
