// The floor of a command round trip in one server, with the emulator's libraries: express takes the POST, one
// O_DSYNC append stores the command, the aedes broker pushes it to the device's KP1 topic, the device's result
// (a publish the broker hands over) is appended the same way, and the request is answered; the result is replied
// to on its `/status` topic, as the platform does. Nothing is validated or kept beyond the waiting requests.
// argv[2]: a JSON file { "dir", "endpoints": [{ "endpointId", "appVersion", "token" }] }.
// Prints "<http url> <mqtt url>" once both listen.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Aedes } from 'aedes';
import express from 'express';
import { durableAppender } from '../lib/durable-append.js';

const { dir, endpoints } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const append = durableAppender(join(dir, 'command-floor.jsonl'));

const byId = new Map(endpoints.map((e) => [e.endpointId, e]));
const waiting = new Map();
let nextId = 0;

const broker = await Aedes.createBroker({ concurrency: 0 });
broker.on('publish', (packet, client) => {
  if (!client) return;
  const [, , extension, , kind, , requestId] = packet.topic.split('/');
  if (extension !== 'cex' || kind !== 'result' || requestId === undefined) return;
  const results = JSON.parse(packet.payload.toString());
  append({ op: 'results', results }, (error) => {
    for (const result of results) {
      const res = waiting.get(result.id);
      if (!res) continue;
      waiting.delete(result.id);
      if (error) res.status(500).json({ message: error.message });
      else res.status(result.statusCode).json(result.payload);
    }
    broker.publish({ cmd: 'publish', topic: `${packet.topic}/status`, payload: Buffer.from('{}'), qos: 0 }, () => {});
  });
});

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post('/cex/api/v1/endpoints/:endpointId/commands/:commandType', express.json(), (req, res) => {
  const endpoint = byId.get(req.params.endpointId);
  if (!endpoint) return res.status(404).json({ message: 'no such endpoint' });
  const command = { id: String(++nextId), payload: req.body };
  append({ op: 'command', endpointId: endpoint.endpointId, command }, (error) => {
    if (error) return res.status(500).json({ message: error.message });
    waiting.set(command.id, res);
    const topic = `kp1/${endpoint.appVersion}/cex/${endpoint.token}/command/${req.params.commandType}/status`;
    broker.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify([command])), qos: 1 }, () => {});
  });
});

const mqttServer = createServer((socket) => {
  socket.setNoDelay(true);
  broker.handle(socket);
});
const httpServer = createHttpServer(app);
httpServer.keepAliveTimeout = 5000;
const listening = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const [httpPort, mqttPort] = await Promise.all([listening(httpServer), listening(mqttServer)]);
process.stdout.write(`http://127.0.0.1:${httpPort} mqtt://127.0.0.1:${mqttPort}\n`);
process.on('SIGTERM', () => process.exit(0));
