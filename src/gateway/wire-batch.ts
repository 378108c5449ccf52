/**
 * What the main thread and the wire thread tell each other (`wire.ts`, `wire-thread.ts`), gathered for one message
 * per turn of the event loop each way: one buffer, handed over without a copy, that holds the operations and then the
 * bytes they carry. A message per operation would cost more than the socket write it saves, and one buffer costs
 * about half of an object of several (a typed array of operations, a buffer of bytes, a list of texts) to post.
 */
export const WireOp = {
  /** Wire thread: a connection was accepted (its remote address follows, value: its length in bytes). */
  Open: 1,
  /** Either way: bytes read from the connection, or to write to it (value: their length). */
  Data: 2,
  /** Wire thread: the peer ended its side. Main thread: end the connection once its bytes are written. */
  End: 3,
  /** Wire thread: the socket closed (its error follows, or nothing; value: its length in bytes). */
  Closed: 4,
  /** Wire thread: a packet announced more than the limit (value: its size); the socket is no longer read. */
  Oversize: 5,
  /** Main thread: close the socket now. */
  Destroy: 6,
  /** Main thread: read the socket (value 1) or hold it (value 0). */
  Read: 7,
  /** Main thread: it has taken this many bytes the wire thread sent (value; the id is 0). */
  Taken: 8,
} as const;
export type WireOp = (typeof WireOp)[keyof typeof WireOp];

/**
 * One message: a 32-bit count of operations, the operations (triples of operation, connection id and value, 32 bits
 * each), then the bytes of the `Data` operations and the texts of `Open` and `Closed` (UTF-8), in their order.
 */
export type WireMessage = ArrayBuffer;

const OP_BYTES = 4;

/** Operations gathered in one turn of the event loop, then posted together as one message (or at once: `flush`). */
export class WireBatch {
  private ops: number[] = [];
  private chunks: Uint8Array[] = [];
  private size = 0;
  private flushing = false;

  constructor(private readonly post: (message: WireMessage, transfer: ArrayBuffer[]) => void) {}

  add(op: WireOp, id: number, value = 0): void {
    this.ops.push(op, id, value);
    this.flushThisTurn();
  }

  /** An operation followed by a text (`Open`, `Closed`). */
  addText(op: WireOp, id: number, text: string): void {
    const bytes = Buffer.from(text);
    this.ops.push(op, id, bytes.length);
    this.chunks.push(bytes);
    this.size += bytes.length;
    this.flushThisTurn();
  }

  data(id: number, chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.ops.push(WireOp.Data, id, chunk.length);
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.flushThisTurn();
  }

  /** Posts what was gathered, if anything. */
  flush(): void {
    this.flushing = false;
    if (this.ops.length > 0) {
      const message = this.take();
      this.post(message, [message]);
    }
  }

  private flushThisTurn(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  /** The message (a buffer of its own, never a slice of node's shared pool: it is transferred); the batch is empty. */
  private take(): WireMessage {
    const start = OP_BYTES * (1 + this.ops.length);
    const message = new ArrayBuffer(start + this.size);
    const ops = new Int32Array(message, 0, 1 + this.ops.length);
    ops[0] = this.ops.length;
    ops.set(this.ops, 1);
    const bytes = new Uint8Array(message, start);
    let offset = 0;
    for (const chunk of this.chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    this.ops = [];
    this.chunks = [];
    this.size = 0;
    return message;
  }
}

type EachOperation = (
  op: WireOp,
  id: number,
  value: number,
  data: Buffer | undefined,
  text: string | undefined,
) => void;

/**
 * Reads a message's operations in order, as many at a time as its reader wants: the bytes of a `Data` operation may
 * be read in parts (a stream of MQTT packets is parsed wherever it is cut), each a view of the message, not a copy.
 */
export class WireMessageReader {
  private readonly ops: Int32Array;
  private op = 0;
  /** Where the bytes of the operation at `op` begin in the message. */
  private offset: number;
  /** Bytes of the `Data` operation at `op` already read. */
  private partRead = 0;

  constructor(private readonly message: WireMessage) {
    const count = new Int32Array(message, 0, 1)[0];
    this.ops = new Int32Array(message, OP_BYTES, count);
    this.offset = OP_BYTES * (1 + count);
  }

  get done(): boolean {
    return this.op >= this.ops.length;
  }

  /** Reads operations until `budget` bytes of data have been read, or the message ends; answers the bytes read. */
  read(each: EachOperation, budget = Infinity): number {
    const { ops, message } = this;
    let read = 0;
    while (this.op < ops.length && read < budget) {
      const op = ops[this.op] as WireOp;
      const id = ops[this.op + 1];
      const value = ops[this.op + 2];
      if (op === WireOp.Data) {
        const length = Math.min(value - this.partRead, budget - read);
        each(op, id, length, Buffer.from(message, this.offset, length), undefined);
        this.offset += length;
        this.partRead += length;
        read += length;
        if (this.partRead < value) break;
        this.partRead = 0;
      } else if (op === WireOp.Open || op === WireOp.Closed) {
        each(op, id, value, undefined, Buffer.from(message, this.offset, value).toString('utf8'));
        this.offset += value;
      } else each(op, id, value, undefined, undefined);
      this.op += 3;
    }
    return read;
  }
}

/** Calls `each` for every operation of a message, with its bytes (a view, not a copy) or its text. */
export function readWireMessage(message: WireMessage, each: EachOperation): void {
  new WireMessageReader(message).read(each);
}
