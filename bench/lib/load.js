import { fileURLToPath } from 'node:url';
import { runToEnd } from './processes.js';

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/**
 * One bounded load run from autocannon in a child process: `amount` requests, or `duration` seconds
 * (the profile's read duration, or a fixed request count in the smoke profile), never past `timeoutSeconds`.
 * Every answer must be 2xx (or exactly `expectStatus`): a run with errors says so instead of producing a figure.
 */
export async function load(bench, job) {
  const { profile } = bench;
  const bounded = job.amount
    ? { amount: job.amount }
    : profile.readAmount
      ? { amount: profile.readAmount }
      : { duration: profile.readSeconds };
  const full = {
    warmupSeconds: profile.warmupSeconds,
    warmupRequests: profile.warmupRequests,
    timeoutSeconds: profile.loadTimeoutSeconds,
    ...bounded,
    ...job,
  };
  if (full.amount) full.connections = Math.min(full.connections, full.amount);
  const result = JSON.parse(await runToEnd(process.execPath, [WORKER, JSON.stringify(full)], { label: 'autocannon' }));
  const expected = (status) => (job.expectStatus ? status === String(job.expectStatus) : status.startsWith('2'));
  const bad = Object.entries(result.statuses).filter(([status]) => !expected(status));
  if (result.errors > 0 || bad.length > 0 || result.ok === 0) {
    const what = bad.map(([s, n]) => `${n} x ${s}`).join(', ');
    throw new Error(
      `${job.method ?? 'GET'} ${job.url}${job.path ?? job.paths?.[0]}: ${result.ok} ok, ${result.errors} ` +
        `connection errors${what ? `, ${what}` : ''}.`,
    );
  }
  return result;
}
