// One load run, in its own process so that the generator never shares a core's event loop with the server
// it measures. Reads a JSON job from argv[2], prints one JSON result line on stdout.
import autocannon from 'autocannon';

const job = JSON.parse(process.argv[2]);

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** autocannon's own histogram keeps whole milliseconds; sub-millisecond figures need every latency. */
function run({ record, duration, amount }) {
  const latencies = [];
  const statuses = {};
  let connection = 0;
  const options = {
    url: job.paths ? job.url : job.url + job.path,
    method: job.method ?? 'GET',
    connections: job.connections,
    pipelining: 1,
    ...(job.headers ? { headers: job.headers } : {}),
    ...(job.body === undefined ? {} : { body: typeof job.body === 'string' ? job.body : JSON.stringify(job.body) }),
    ...(amount ? { amount } : { duration }),
  };
  // Each connection keeps one path of `paths`: commands to one endpoint per invoker, for instance.
  if (job.paths) options.setupClient = (client) => client.setRequests([{ path: job.paths[connection++ % job.paths.length] }]);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let lastAnswer;
    let rampEnd;
    let answers = 0;
    const instance = autocannon(options, (err, result) => {
      clearTimeout(timeout);
      if (err) return reject(err);
      // Throughput over the steady part: from the answer by which every connection has had one (connecting
      // and the first requests are a ramp) to the last answer (autocannon ends an `amount` run on its
      // once-a-second tick, later than the last answer).
      const steady = answers > job.connections * 2;
      const seconds = steady ? (lastAnswer - rampEnd) / 1000 : ((lastAnswer ?? performance.now()) - started) / 1000;
      const counted = steady ? answers - job.connections : answers;
      latencies.sort((a, b) => a - b);
      const ok = latencies.length;
      resolve({
        requests: result.requests.total,
        ok,
        errors: result.errors + result.timeouts,
        statuses,
        seconds,
        rps: counted / seconds,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        mean: ok ? latencies.reduce((a, b) => a + b, 0) / ok : null,
      });
    });
    const timeout = setTimeout(() => instance.stop(), job.timeoutSeconds * 1000);
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      lastAnswer = performance.now();
      if (++answers === job.connections) rampEnd = lastAnswer;
      if (record && statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

try {
  if (job.warmupSeconds > 0) await run({ record: false, duration: job.warmupSeconds });
  const result = await run({ record: true, duration: job.duration, amount: job.amount });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
}
