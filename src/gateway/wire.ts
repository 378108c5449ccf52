import { existsSync } from 'node:fs';
import { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PacketTooLarge } from './packet-limit.js';
import { WireBatch, WireMessageReader, WireOp, type WireMessage } from './wire-batch.js';
import type { WireThreadCommand, WireThreadEvent, WireThreadOptions } from './wire-thread.js';

const WIRE_THREAD = new URL('./wire-thread.js', import.meta.url);
/**
 * How much of what the wire thread read the main thread handles before it reads its other sockets again: some 150
 * samples of `device simulate` (about 110 bytes each), a few milliseconds of work (docs/performance.md, round
 * eighteen).
 */
const WIRE_BYTES_PER_TURN = 16 * 1024;

/** A connection of the wire thread as the broker reads and writes it; its socket is in the wire thread. */
export class WireConnection extends Duplex {
  /** Not read while held (`holdReading`), nor while the broker has not taken what came (the stream's backpressure). */
  private held = false;
  private full = false;
  private reading = true;
  /** The socket closed: nothing to tell the wire thread any more. */
  gone = false;

  constructor(
    readonly id: number,
    readonly remoteAddress: string,
    private readonly wire: Wire,
  ) {
    super({ allowHalfOpen: false });
  }

  received(chunk: Buffer): void {
    if (this.push(chunk)) return;
    this.full = true;
    this.tellReading();
  }

  override _read(): void {
    this.full = false;
    this.tellReading();
  }

  hold(held: boolean): void {
    this.held = held;
    this.tellReading();
  }

  private tellReading(): void {
    const reading = !this.held && !this.full;
    if (reading === this.reading) return;
    this.reading = reading;
    this.wire.send(WireOp.Read, this.id, reading ? 1 : 0);
  }

  // Written as soon as the wire thread gets it: like a socket's, its buffer there has no bound of its own (the broker
  // writes on regardless of what its writes answer).
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.wire.data(this.id, chunk);
    done();
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    for (const { chunk } of chunks) this.wire.data(this.id, chunk);
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.wire.send(WireOp.End, this.id);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (!this.gone) this.wire.send(WireOp.Destroy, this.id);
    this.wire.forget(this.id);
    done(error);
  }
}

export interface WireHandlers {
  connection(connection: WireConnection): void;
  /** A packet over the limit: told before the connection closes. */
  oversize(error: PacketTooLarge, connection: WireConnection): void;
  log(message: string): void;
}

/** The main thread's side of the wire thread: its connections, and what they write, posted once per turn. */
export class Wire {
  private readonly connections = new Map<number, WireConnection>();
  private readonly batch: WireBatch;
  /** Messages of the wire thread not read yet (or not whole), oldest first (read by `readArrived`). */
  private arrived: WireMessageReader[] = [];
  private closing: Promise<void> | undefined;

  constructor(
    private readonly worker: Worker,
    readonly port: number,
    private readonly limit: number,
    private readonly handlers: WireHandlers,
  ) {
    this.batch = new WireBatch((message, transfer) => worker.postMessage(message, transfer));
    worker.on('message', (message: WireMessage | WireThreadEvent) => {
      if (!(message instanceof ArrayBuffer)) return;
      this.arrived.push(new WireMessageReader(message));
      if (this.arrived.length === 1) setImmediate(this.readArrived);
    });
    worker.on('error', (err) => handlers.log(`The MQTT wire thread failed: ${err.stack ?? err.message}`));
    worker.once('exit', () => {
      this.arrived = [];
      if (!this.closing) handlers.log('The MQTT wire thread ended: MQTT connections on the plain port are closed.');
      for (const connection of this.connections.values()) {
        connection.gone = true;
        connection.destroy();
      }
    });
  }

  /**
   * Reads what the wire thread sent, WIRE_BYTES_PER_TURN at a time, and lets the event loop go round between: node
   * hands over every message that waits at once, and a main thread that fell behind (a full collection, a burst of
   * devices) would otherwise parse and handle seconds of KP1 requests before it read its next HTTP request.
   */
  private readonly readArrived = (): void => {
    let bytes = 0;
    let done = 0;
    while (done < this.arrived.length && bytes < WIRE_BYTES_PER_TURN) {
      const reader = this.arrived[done];
      bytes += reader.read(this.onOperation, WIRE_BYTES_PER_TURN - bytes);
      if (reader.done) done++;
    }
    this.arrived = done === this.arrived.length ? [] : this.arrived.slice(done);
    // What it reads next waits for this (WIRE_BYTES_AHEAD): told with what this thread writes in this turn.
    if (bytes > 0) this.send(WireOp.Taken, 0, bytes);
    if (this.arrived.length > 0) setImmediate(this.readArrived);
  };

  private readonly onOperation = (op: WireOp, id: number, value: number, data?: Buffer, text?: string): void =>
    this.on(op, id, value, data, text);

  private on(op: WireOp, id: number, value: number, data: Buffer | undefined, text: string | undefined): void {
    if (op === WireOp.Open) {
      const connection = new WireConnection(id, text!, this);
      this.connections.set(id, connection);
      this.handlers.connection(connection);
      return;
    }
    const connection = this.connections.get(id);
    if (!connection) return;
    if (op === WireOp.Data) connection.received(data!);
    else if (op === WireOp.End) connection.push(null);
    else if (op === WireOp.Oversize) {
      const error = new PacketTooLarge(value, this.limit);
      this.handlers.oversize(error, connection);
      connection.destroy(error);
    } else if (op === WireOp.Closed) {
      connection.gone = true;
      connection.destroy(text ? new Error(text) : undefined);
    }
  }

  send(op: WireOp, id: number, value = 0): void {
    this.batch.add(op, id, value);
  }

  data(id: number, chunk: Buffer): void {
    this.batch.data(id, chunk);
  }

  forget(id: number): void {
    this.connections.delete(id);
  }

  /** Stops accepting; resolves once every socket closed (the broker closes its connections) and the thread ended. */
  close(): Promise<void> {
    return (this.closing ??= new Promise<void>((resolve) => {
      this.worker.once('exit', () => resolve());
      this.batch.flush();
      this.worker.postMessage({ type: 'close' } satisfies WireThreadCommand);
    }));
  }
}

const wireThreadBuilt = () => existsSync(fileURLToPath(WIRE_THREAD));

interface SpawnedWireThread {
  worker: Worker;
  /** Resolves once the thread ended, with why (its error, else its exit code): one may fail before it is asked. */
  ended: Promise<Error>;
}

/** A wire thread started ahead of `startWire`. */
let prepared: SpawnedWireThread | undefined;

function spawnWireThread(): SpawnedWireThread {
  const worker = new Worker(WIRE_THREAD, { stdout: false, stderr: false });
  // Until it is asked to listen, the thread keeps no process alive (a start that fails before then exits).
  worker.unref();
  let failure: Error | undefined;
  worker.once('error', (err) => (failure = err));
  const ended = new Promise<Error>((resolve) =>
    worker.once('exit', (code) =>
      resolve(failure ?? new Error(`The MQTT wire thread ended (${code}) before it listened.`)),
    ),
  );
  return { worker, ended };
}

/**
 * Starts the wire thread's worker now, for a `startWire` to come: its own start (an isolate of its own, loading its
 * module) then runs on the other core while the emulator's modules load (`platform-emu start`) or its state opens
 * (`startEmulator`), rather than after them (figures 1a and 9a in docs/performance.md). It listens only once
 * `startWire` asks.
 */
export function prepareWireThread(): void {
  if (!prepared && wireThreadBuilt()) prepared = spawnWireThread();
}

/**
 * Listens for plain MQTT in the wire thread (the one `prepareWireThread` started, or a new one); undefined where its
 * file is not beside this one (the project's tests run this module from its TypeScript source): the caller then
 * listens on the main thread.
 */
export async function startWire(options: WireThreadOptions, handlers: WireHandlers): Promise<Wire | undefined> {
  if (!wireThreadBuilt()) return undefined;
  const { worker, ended } = prepared ?? spawnWireThread();
  prepared = undefined;
  worker.ref();
  worker.postMessage({ type: 'listen', options } satisfies WireThreadCommand);
  const first = await Promise.race([
    new Promise<WireThreadEvent>((resolve) => worker.once('message', resolve)),
    ended.then((why) => Promise.reject(why)),
  ]);
  if (first.type !== 'listening') {
    await ended;
    throw new Error(first.message);
  }
  return new Wire(worker, first.port, options.limit, handlers);
}
