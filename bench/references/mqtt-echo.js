// The raw MQTT round trip: `concurrency` requesters each publish a message and wait for its echo, which
// as many echo clients publish back, through the given broker with the same client library (mqtt) and QoS
// the simulated devices use. argv: mqttUrl, concurrency, count. Prints { p50, p99 } in milliseconds.
import mqtt from 'mqtt';

const [mqttUrl, concurrency, count] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const connect = (clientId) =>
  new Promise((resolve, reject) => {
    const client = mqtt.connect(mqttUrl, { clientId, reconnectPeriod: 0 });
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });

const times = [];
let sent = 0;
const clients = [];

async function pair(i) {
  const [requester, echo] = await Promise.all([connect(`bench-echo-req-${i}`), connect(`bench-echo-${i}`)]);
  clients.push(requester, echo);
  echo.on('message', (_topic, payload) => echo.publish(`bench/echo/${i}/response`, payload));
  await echo.subscribeAsync(`bench/echo/${i}/request`);
  await requester.subscribeAsync(`bench/echo/${i}/response`);
  return new Promise((resolve) => {
    let started = 0;
    const next = () => {
      if (sent >= count) return resolve();
      sent++;
      started = performance.now();
      requester.publish(`bench/echo/${i}/request`, JSON.stringify([{ id: sent, payload: { ok: true } }]));
    };
    requester.on('message', () => {
      times.push(performance.now() - started);
      next();
    });
    next();
  });
}

await Promise.all(Array.from({ length: concurrency }, (_, i) => pair(i)));
await Promise.all(clients.map((c) => c.endAsync()));
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
process.stdout.write(`${JSON.stringify({ p50: at(50), p99: at(99) })}\n`);
