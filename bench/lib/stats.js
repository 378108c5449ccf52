export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The median of one field over the results of the rounds of each task: `{ key: [results] }` to `{ key: median }`. */
export function medians(results, field) {
  return Object.fromEntries(Object.entries(results).map(([key, runs]) => [key, median(runs.map((run) => run[field]))]));
}

/** Each task's values of one field, round by round: `{ key: [results] }` to `{ key: [values] }` (for a spread). */
export function series(results, field) {
  return Object.fromEntries(Object.entries(results).map(([key, runs]) => [key, runs.map((run) => run[field])]));
}
