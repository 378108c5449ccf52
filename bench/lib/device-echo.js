// Simulated devices for the command round trip, in their own process: one MQTT connection per endpoint,
// subscribed to its command push (`kp1/<v>/cex/<token>/command/<type>/status`), answering every new
// command at once on `.../result/<type>/<requestId>` with status 200. Prints "ready <mqttUrl>" once subscribed.
// argv[2]: JSON { mqttUrl, commandType, devices: [{ appVersion, token }] }.
import mqtt from 'mqtt';

const { mqttUrl, commandType, devices } = JSON.parse(process.argv[2]);
const clients = [];

function device({ appVersion, token }, index) {
  const base = `kp1/${appVersion}/cex/${token}`;
  const pushTopic = `${base}/command/${commandType}/status`;
  const answered = new Set();
  let requestId = 0;
  const client = mqtt.connect(mqttUrl, { clientId: `bench-device-${index}`, reconnectPeriod: 0 });
  clients.push(client);
  // The gateway also sends this connection the replies to its results (`.../result/<type>/<id>/status`).
  client.on('message', (topic, payload) => {
    if (topic !== pushTopic) return;
    const fresh = JSON.parse(payload.toString()).filter((command) => !answered.has(command.id));
    if (fresh.length === 0) return;
    for (const command of fresh) answered.add(command.id);
    requestId = (requestId % 99) + 1;
    const results = fresh.map((command) => ({
      id: command.id,
      statusCode: 200,
      payload: { ok: true, echo: command.payload ?? null },
    }));
    client.publish(`${base}/result/${commandType}/${requestId}`, JSON.stringify(results));
  });
  return new Promise((resolve, reject) => {
    client.once('error', reject);
    client.once('connect', () => client.subscribe(pushTopic, (err) => (err ? reject(err) : resolve())));
  });
}

await Promise.all(devices.map(device));
process.stdout.write(`ready ${mqttUrl}\n`);
process.on('SIGTERM', () => Promise.all(clients.map((c) => c.endAsync())).finally(() => process.exit(0)));
