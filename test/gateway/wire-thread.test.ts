import { once } from 'node:events';
import { createServer, connect, type AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import type { startEmulator as StartEmulator } from '../../src/index.js';
import { KP1_REQUESTS_WAITING } from '../../src/gateway/mqtt-requests.js';
import { floodRequests, logRecorder } from './device.js';

// The wire thread (src/gateway/wire-thread.ts) runs only from the build: these tests start the built emulator
// (`npm test` builds it first), which serves the plain MQTT port from it. The other gateway tests run the source,
// where the same broker reads sockets on the main thread.
const { startEmulator } = (await import(new URL('../../dist/index.js', import.meta.url).href)) as {
  startEmulator: typeof StartEmulator;
};

const TOPIC = 'kp1/smart-meter-v1/tsx/meter-001-token';
const nextMessage = (client: mqtt.MqttClient) =>
  new Promise<[string, Buffer]>((resolve) => client.once('message', (topic, payload) => resolve([topic, payload])));
const closeOf = (client: mqtt.MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));
const socketsOfThisThread = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

describe('the plain MQTT port, served by the wire thread', async () => {
  const logs = logRecorder();
  const bodyLimit = 16 * 1024;
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, bodyLimit, log: logs.log });
  afterAll(() => emulator.stop());

  it('keeps the socket of a connection off the main thread, and answers KP1 over it', async () => {
    const before = socketsOfThisThread();
    const client = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    try {
      // The client's socket is one of this thread's; the emulator's end of it is not.
      expect(socketsOfThisThread()).toBe(before + 1);
      await client.subscribeAsync(`${TOPIC}/+/+`);
      const reply = nextMessage(client);
      await client.publishAsync(`${TOPIC}/7`, '{}');
      const [topic, payload] = await reply;
      expect(topic).toBe(`${TOPIC}/7/status`);
      expect(payload.length).toBeGreaterThan(0);
    } finally {
      await client.endAsync();
    }
  });

  it(`holds back a device that floods (${KP1_REQUESTS_WAITING} waiting) and still answers every request in order`, async () => {
    const flood = KP1_REQUESTS_WAITING * 16;
    const client = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    try {
      const replies = await floodRequests(client, TOPIC, flood, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        // This thread is the emulator's main thread: busy while the requests arrive, it then gets them all at once, as
        // a broker that fell behind does, and the connection's queue passes its bound.
        const until = Date.now() + 500;
        while (Date.now() < until);
      });
      expect(replies).toEqual(Array.from({ length: flood }, (_, i) => `${TOPIC}/${i + 1}/status`));
      await logs.waitFor(/sends KP1 requests faster than they are answered/);
    } finally {
      await client.endAsync();
    }
  });

  it('closes a connection that announces a packet over the limit, and only that one', async () => {
    const bystander = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    const sender = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0, clientId: 'wire-oversize' });
    try {
      // The client reports the reset (ECONNRESET or EPIPE, as the timing goes); only the close matters here.
      sender.on('error', () => undefined);
      const closed = closeOf(sender);
      const limit = bodyLimit + 128 * 1024;
      sender.publish('big/topic', Buffer.alloc(limit + 1));
      await closed;
      await logs.waitFor(
        new RegExp(`MQTT client wire-oversize sent an MQTT packet of ${limit + 1 + 2 + 'big/topic'.length} bytes`),
      );
      await bystander.subscribeAsync('small/#');
      const received = nextMessage(bystander);
      await bystander.publishAsync('small/ok', Buffer.alloc(bodyLimit));
      const [, payload] = await received;
      expect(payload).toHaveLength(bodyLimit);
    } finally {
      sender.end(true);
      await bystander.endAsync();
    }
  });

  it('closes a connection whose packet length is malformed', async () => {
    const socket = connect(Number(new URL(emulator.mqttUrl).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => undefined);
    // A fixed header and five continuation bytes: a remaining length has at most four.
    socket.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f]));
    await once(socket, 'close');
    expect(socket.destroyed).toBe(true);
  });

  it('tells the emulator when a device goes away, and its endpoint goes offline', async () => {
    const client = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    await client.subscribeAsync(`${TOPIC}/+/+`);
    const reply = nextMessage(client);
    await client.publishAsync(`${TOPIC}/1`, '{}');
    await reply;
    const online = async () => {
      const response = await fetch(`${emulator.url}/_emu/connections?endpointId=meter-001`);
      const [connection] = (await response.json()) as Array<{ online: boolean }>;
      return connection?.online;
    };
    expect(await online()).toBe(true);
    client.stream.destroy();
    await expect.poll(online, { timeout: 10_000 }).toBe(false);
  });
});

/** A client in a thread of its own: it writes PUBLISH packets as fast as TCP takes them, and counts what TCP took. */
const FLOODER = `
const { connect } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const written = new Int32Array(workerData.written);
const body = Buffer.alloc(60 * 1024);
const frame = Buffer.concat([Buffer.from([0x30, 0x80, 0xe0, 0x03, 0x00, 0x01, 0x74]), body.subarray(3)]);
const socket = connect(workerData.port, '127.0.0.1', () => parentPort.postMessage('connected'));
socket.on('error', () => undefined);
parentPort.once('message', () => {
  const more = () => {
    while (socket.bytesWritten - socket.writableLength < workerData.target) {
      const flushed = socket.write(frame);
      Atomics.store(written, 0, Math.floor((socket.bytesWritten - socket.writableLength) / 1024));
      if (!flushed) return socket.once('drain', more);
    }
  };
  more();
  setInterval(() => Atomics.store(written, 0, Math.floor((socket.bytesWritten - socket.writableLength) / 1024)), 5);
});
`;

describe('the wire thread beside a busy main thread', async () => {
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
  afterAll(() => emulator.stop());

  it('reads no more than 8 MiB ahead of it: TCP holds the device back', async () => {
    const written = new SharedArrayBuffer(4);
    const target = 256 * 1024 * 1024;
    const flooder = new Worker(FLOODER, {
      eval: true,
      workerData: { port: Number(new URL(emulator.mqttUrl).port), target, written },
    });
    try {
      await once(flooder, 'message');
      flooder.postMessage('go');
      // This thread is the emulator's main thread: it takes nothing the wire thread reads for two seconds.
      const until = Date.now() + 2000;
      while (Date.now() < until);
      const kib = Atomics.load(new Int32Array(written), 0);
      // 8 MiB ahead, a chunk, and what the kernel's socket buffers hold (up to 32 MiB here) at most.
      expect(kib * 1024).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await flooder.terminate();
    }
  });
});

/**
 * An HTTP client in a thread of its own: connected first, then told to, it asks for the emulator's health, says it
 * did, and posts the answer.
 */
const ASKER = `
const { connect } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const sent = new Int32Array(workerData.sent);
const socket = connect(workerData.port, '127.0.0.1', () => parentPort.postMessage('connected'));
const chunks = [];
socket.on('data', (chunk) => chunks.push(chunk));
socket.on('end', () => parentPort.postMessage(Buffer.concat(chunks).toString()));
parentPort.once('message', () =>
  socket.write('GET /_emu/health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n', () => {
    Atomics.store(sent, 0, 1);
    Atomics.notify(sent, 0);
  }),
);
`;

describe('the main thread behind a backlog of KP1 requests', async () => {
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
  afterAll(() => emulator.stop());
  const journalSeq = (health: { journal: { lastSeq: number } }) => health.journal.lastSeq;

  it('reads an HTTP request that came after a backlog of requests once it has handled 16 KiB of them', async () => {
    // Three devices, each held back once 256 of its requests wait: the backlog is theirs together.
    const tokens = ['meter-001-token', 'meter-002-token', 'meter-003-token'];
    const each = KP1_REQUESTS_WAITING * 4;
    const sent = new SharedArrayBuffer(4);
    const asker = new Worker(ASKER, { eval: true, workerData: { port: Number(new URL(emulator.url).port), sent } });
    await once(asker, 'message');
    const answer = once(asker, 'message') as Promise<[string]>;
    const clients = await Promise.all(tokens.map(() => mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 })));
    try {
      const topics = tokens.map((token) => `kp1/smart-meter-v1/tsx/${token}`);
      await Promise.all(clients.map((client, i) => client.subscribeAsync(`${topics[i]}/+/+`)));
      const replies = clients.map(
        (client, i) =>
          new Promise<void>((resolve) => {
            let count = 0;
            client.on('message', (topic) => topic.startsWith(`${topics[i]}/`) && ++count === each && resolve());
          }),
      );
      const before = journalSeq(await (await fetch(`${emulator.url}/_emu/health`)).json());
      for (let id = 1; id <= each; id++) clients.forEach((client, i) => client.publish(`${topics[i]}/${id}`, '{}'));
      // This thread is the emulator's main thread: busy while the wire thread reads the requests and hands them over,
      // and until the health request is on its way, after them.
      const until = Date.now() + 300;
      while (Date.now() < until);
      asker.postMessage('go');
      Atomics.wait(new Int32Array(sent), 0, 0, 10_000);
      await Promise.all(replies);
      const [response] = await answer;
      expect(response).toMatch(/^HTTP\/1\.1 200 /);
      // A KP1 request is journaled once handled: the health answer tells how many were when it was read. A request
      // is some 50 bytes: 16 KiB carry about 330 of them.
      const handledFirst = journalSeq(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))) - before;
      expect(handledFirst).toBeLessThan(500);
    } finally {
      await Promise.all(clients.map((client) => client.endAsync()));
      await asker.terminate();
    }
  });
});

describe('the wire thread at start and stop', () => {
  it('refuses a port in use with the flag that moves it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(startEmulator({ port: 0, mqttPort: port, inMemory: true, log: () => undefined })).rejects.toThrow(
        `The MQTT port ${port} is in use (another broker, or another emulator?). Pick another with --mqtt-port`,
      );
    } finally {
      taken.close();
    }
  });

  it('closes its connections when the emulator stops', async () => {
    const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, log: () => undefined });
    const client = await mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    const closed = closeOf(client);
    await emulator.stop();
    await closed;
    expect(client.connected).toBe(false);
  });
});
