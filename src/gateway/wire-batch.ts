/**
 * What the main thread and the wire thread tell each other (`wire.ts`, `wire-thread.ts`), gathered for one message
 * per turn of the event loop each way: a list of operations and one buffer of the bytes they carry, handed over
 * without a copy. A message per operation would cost more than the socket write it saves.
 */
export const WireOp = {
  /** Wire thread: a connection was accepted (text: its remote address). */
  Open: 1,
  /** Either way: bytes read from the connection, or to write to it (value: their length). */
  Data: 2,
  /** Wire thread: the peer ended its side. Main thread: end the connection once its bytes are written. */
  End: 3,
  /** Wire thread: the socket closed (text: its error, or empty). */
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

export interface WireMessage {
  /** Triples of operation, connection id and value. */
  ops: Int32Array;
  bytes: ArrayBuffer;
  texts: string[];
}

/** Operations gathered in one turn of the event loop, then posted together as one message (or at once: `flush`). */
export class WireBatch {
  private ops: number[] = [];
  private chunks: Uint8Array[] = [];
  private size = 0;
  private texts: string[] = [];
  private flushing = false;

  constructor(private readonly post: (message: WireMessage, transfer: ArrayBuffer[]) => void) {}

  add(op: WireOp, id: number, value = 0, text?: string): void {
    this.ops.push(op, id, value);
    if (text !== undefined) this.texts.push(text);
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
    if (this.ops.length > 0) this.post(...this.take());
  }

  private flushThisTurn(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  /** The message and what it transfers; the batch is empty again. */
  private take(): [WireMessage, ArrayBuffer[]] {
    // A buffer of its own, never a slice of node's shared pool: it is transferred.
    const bytes = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    const ops = Int32Array.from(this.ops);
    const message = { ops, bytes: bytes.buffer, texts: this.texts };
    this.ops = [];
    this.chunks = [];
    this.size = 0;
    this.texts = [];
    return [message, [ops.buffer, bytes.buffer]];
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
  private op = 0;
  private offset = 0;
  /** Bytes of the `Data` operation at `op` already read. */
  private partRead = 0;
  private text = 0;

  constructor(private readonly message: WireMessage) {}

  get done(): boolean {
    return this.op >= this.message.ops.length;
  }

  /** Reads operations until `budget` bytes of data have been read, or the message ends; answers the bytes read. */
  read(each: EachOperation, budget = Infinity): number {
    const { ops, bytes, texts } = this.message;
    let read = 0;
    while (this.op < ops.length && read < budget) {
      const op = ops[this.op] as WireOp;
      const id = ops[this.op + 1];
      const value = ops[this.op + 2];
      if (op === WireOp.Data) {
        const length = Math.min(value - this.partRead, budget - read);
        each(op, id, length, Buffer.from(bytes, this.offset, length), undefined);
        this.offset += length;
        this.partRead += length;
        read += length;
        if (this.partRead < value) break;
        this.partRead = 0;
      } else if (op === WireOp.Open || op === WireOp.Closed) each(op, id, value, undefined, texts[this.text++]);
      else each(op, id, value, undefined, undefined);
      this.op += 3;
    }
    return read;
  }
}

/** Calls `each` for every operation of a message, with its bytes (a view, not a copy) or its text. */
export function readWireMessage(message: WireMessage, each: EachOperation): void {
  new WireMessageReader(message).read(each);
}
