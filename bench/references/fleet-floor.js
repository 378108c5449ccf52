// The floor of a fleet's publish-to-reply time on this machine (bench/lib/fleet-floor.js): the emulator's broker
// library (aedes, reading its sockets on the thread that answers, as its documentation runs it) answering every KP1
// request at once on its `/status` topic, with nothing checked, stored or journaled, and node:http answering every
// GET on the same thread (the fleet's health probe asks it). What a fleet of `device simulate` meets here is the
// machine, the simulator and the broker, without the emulator's work.
// Prints "<http url> <mqtt url>" once both listen.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { Aedes } from 'aedes';

const ANSWER = Buffer.from('{}');
const HEALTH = JSON.stringify({ status: 'ok' });

const broker = await Aedes.createBroker({ concurrency: 0 });
broker.on('publish', (packet, client) => {
  const { topic } = packet;
  if (!client || !topic.startsWith('kp1/') || topic.endsWith('/status') || topic.endsWith('/error')) return;
  broker.publish(
    { cmd: 'publish', topic: `${topic}/status`, payload: ANSWER, qos: 0, retain: false, dup: false },
    () => {},
  );
});

const mqttServer = createServer((socket) => {
  socket.setNoDelay(true);
  broker.handle(socket);
});
const httpServer = createHttpServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(HEALTH);
});
const listening = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const [httpPort, mqttPort] = await Promise.all([listening(httpServer), listening(mqttServer)]);
process.stdout.write(`http://127.0.0.1:${httpPort} mqtt://127.0.0.1:${mqttPort}\n`);
process.on('SIGTERM', () => process.exit(0));
