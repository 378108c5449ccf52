// One load run, in its own process so that the generator never shares a core's event loop with the server
// it measures. Reads a JSON job from argv[2], prints one JSON result line on stdout.
//
// autocannon ends runs on a once-a-second tick, so the warm-up is the start of the same run rather than a
// run of its own: answers in the first `warmupSeconds` (time-bound runs) or the first `warmupRequests`
// (count-bound runs) are not counted, and throughput is timed from the first counted answer to the last.
import autocannon from 'autocannon';

const job = JSON.parse(process.argv[2]);

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const warmupSeconds = job.amount ? 0 : Math.ceil(job.warmupSeconds ?? 0);
const warmupRequests = job.amount ? (job.warmupRequests ?? 0) : 0;
let connection = 0;
const options = {
  url: job.paths ? job.url : job.url + job.path,
  method: job.method ?? 'GET',
  connections: job.connections,
  pipelining: 1,
  ...(job.headers ? { headers: job.headers } : {}),
  // autocannon gives up on an answer after 10 s by default; a slow reference (json-server's writes) may need longer.
  ...(job.requestTimeoutSeconds ? { timeout: job.requestTimeoutSeconds } : {}),
  ...(job.body === undefined ? {} : { body: typeof job.body === 'string' ? job.body : JSON.stringify(job.body) }),
  ...(job.amount ? { amount: job.amount + warmupRequests } : { duration: warmupSeconds + job.duration }),
};
// Each connection keeps one path of `paths`: commands to one endpoint per invoker, for instance.
if (job.paths)
  options.setupClient = (client) => client.setRequests([{ path: job.paths[connection++ % job.paths.length] }]);

// autocannon's own histogram keeps whole milliseconds; sub-millisecond figures need every latency.
const latencies = [];
const statuses = {};
let answers = 0;
let counted = 0;
let firstCounted;
let lastCounted;

const started = performance.now();
// Also skip the answers by which every connection has had its first (connecting is a ramp, not a rate),
// unless the run is too short to spare them.
const skip = Math.max(warmupRequests, job.amount >= 3 * job.connections ? job.connections : 0);
let finished = false;
function finish(requests, errors) {
  if (finished) return;
  finished = true;
  clearTimeout(timeout);
  latencies.sort((a, b) => a - b);
  const seconds = counted > 1 ? (lastCounted - firstCounted) / 1000 : (performance.now() - started) / 1000;
  const out = {
    requests,
    ok: latencies.length,
    counted,
    errors,
    statuses,
    seconds,
    rps: counted > 1 ? (counted - 1) / seconds : counted / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
  // Exits rather than waiting for autocannon's next tick (up to a second, a good part of a smoke run).
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
}
const instance = autocannon(options, (err, result) => {
  if (err) {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  }
  finish(result.requests.total, result.errors + result.timeouts);
});
const timeout = setTimeout(() => instance.stop(), job.timeoutSeconds * 1000);
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  const now = performance.now();
  answers++;
  const warm = job.amount ? answers > skip : now - started >= warmupSeconds * 1000 && answers > job.connections;
  if (warm) {
    counted++;
    firstCounted ??= now;
    lastCounted = now;
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  }
  // A count-bound run whose every request has its answer is over: nothing failed, nothing is left to send.
  if (job.amount && answers === options.amount) finish(answers, 0);
});
