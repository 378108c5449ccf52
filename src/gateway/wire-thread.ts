// The wire thread: the sockets of plain MQTT connections, read and written here rather than on the main thread,
// where the broker parses what they carry (`wire.ts` is the other side). At thousands of devices a socket write per
// reply was a fifth of the main thread's time (docs/performance.md, round sixteen).
import { createServer, type Socket } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { listenBrokerPort } from './listen-port.js';
import { FrameScanner, PacketTooLarge } from './packet-limit.js';
import { readWireMessage, WireBatch, WireOp, type WireMessage } from './wire-batch.js';

export interface WireThreadOptions {
  host: string;
  port: number;
  /** The largest packet (remaining length) a connection may announce. */
  limit: number;
}

/**
 * What the main thread tells the wire thread besides its sockets' bytes: where to listen (once; the thread may be
 * started before the emulator knows it needs it, `prepareWireThread`), and to close.
 */
export type WireThreadCommand = { type: 'listen'; options: WireThreadOptions } | { type: 'close' };

/** What the wire thread posts first: where it listens, or that it could not (it ends once every socket closed). */
export type WireThreadEvent = { type: 'listening'; port: number } | { type: 'failed'; message: string };

/**
 * Bytes sent to the main thread and not yet taken by it past which the sockets that deliver more are not read until
 * it has taken half: a main thread that falls behind holds the devices back through TCP, as it did when it read the
 * sockets itself, rather than the wire thread queueing for it without bound.
 */
const WIRE_BYTES_AHEAD = 8 * 1024 * 1024;

const main = parentPort!;
/** The largest packet a connection may announce (`listen` sets it before the first connection). */
let limit = 0;
const connections = new Map<number, Socket>();
/** Sockets the main thread holds (`Read` 0), and those held here until it catches up. */
const heldByMain = new Set<Socket>();
const heldForMain = new Set<Socket>();
let ahead = 0;
let nextId = 1;
const batch = new WireBatch((message, transfer) => main.postMessage(message, transfer));

const server = createServer((socket) => {
  const id = nextId++;
  const scanner = new FrameScanner(limit);
  connections.set(id, socket);
  socket.setNoDelay(true);
  batch.addText(WireOp.Open, id, socket.remoteAddress ?? '');
  let failure = '';
  socket.on('data', (chunk: Buffer) => {
    const error = scanner.scan(chunk);
    if (error) {
      // Nothing of a packet over the limit is read: the connection closes before its body arrives.
      if (error instanceof PacketTooLarge) batch.add(WireOp.Oversize, id, error.size);
      else failure = error.message;
      socket.destroy();
      return;
    }
    batch.data(id, chunk);
    ahead += chunk.length;
    if (ahead > WIRE_BYTES_AHEAD) {
      heldForMain.add(socket);
      socket.pause();
    }
  });
  socket.on('end', () => {
    batch.add(WireOp.End, id);
  });
  socket.on('error', (err) => (failure = err.message));
  socket.on('close', () => {
    connections.delete(id);
    heldByMain.delete(socket);
    heldForMain.delete(socket);
    batch.addText(WireOp.Closed, id, failure);
  });
});

main.on('message', (message: WireMessage | WireThreadCommand) => {
  if (!(message instanceof ArrayBuffer)) {
    if (message.type === 'listen') listen(message.options);
    else
      server.close(() => {
        batch.flush();
        main.close();
      });
    return;
  }
  const corked = new Set<Socket>();
  readWireMessage(message, (op, id, value, data) => {
    const socket = connections.get(id);
    if (op === WireOp.Taken) taken(value);
    if (!socket) return;
    if (op === WireOp.Data) {
      if (!corked.has(socket)) {
        corked.add(socket);
        socket.cork();
      }
      socket.write(data!);
    } else if (op === WireOp.End || op === WireOp.Destroy) {
      // What the broker wrote before closing (a refused login's CONNACK) goes out first: a destroy drops what a
      // corked socket holds.
      if (corked.delete(socket)) socket.uncork();
      if (op === WireOp.End) socket.end();
      else socket.destroy();
    } else if (op === WireOp.Read) {
      if (value === 0) {
        heldByMain.add(socket);
        socket.pause();
      } else {
        heldByMain.delete(socket);
        if (!heldForMain.has(socket)) socket.resume();
      }
    }
  });
  for (const socket of corked) socket.uncork();
});

function taken(bytes: number): void {
  ahead -= bytes;
  if (ahead > WIRE_BYTES_AHEAD / 2 || heldForMain.size === 0) return;
  for (const socket of heldForMain) if (!heldByMain.has(socket)) socket.resume();
  heldForMain.clear();
}

function listen(options: WireThreadOptions): void {
  limit = options.limit;
  listenBrokerPort(server, { port: options.port, host: options.host, protocol: 'MQTT', flag: '--mqtt-port' }).then(
    (bound) => main.postMessage({ type: 'listening', port: bound } satisfies WireThreadEvent),
    (err: Error) => {
      main.postMessage({ type: 'failed', message: err.message } satisfies WireThreadEvent);
      main.close();
    },
  );
}
