import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

/** Room above the body limit for a packet's topic (up to 64 KiB), MQTT 5 properties and headers. */
export const PACKET_HEADROOM = 128 * 1024;

/** The largest MQTT packet (remaining length) the broker accepts for a given HTTP body limit. */
export const maxPacketSize = (bodyLimit: number) => bodyLimit + PACKET_HEADROOM;

export class PacketTooLarge extends Error {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`an MQTT packet of ${size} bytes, over the limit of ${limit}`);
  }
}

/** Follows the MQTT framing of a byte stream (fixed header byte, remaining length, body) without keeping any of it. */
export class FrameScanner {
  /** Body bytes of the current packet still to pass. */
  private skip = 0;
  /** -1 while a fixed header byte is expected; otherwise how many remaining-length bytes were read. */
  private lengthBytes = -1;
  private length = 0;

  constructor(private readonly limit: number) {}

  /** The error of the first packet in the chunk that announces more than the limit, if any. */
  scan(chunk: Buffer): Error | undefined {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      const byte = chunk[i++];
      if (this.lengthBytes === -1) {
        this.lengthBytes = 0;
        this.length = 0;
        continue;
      }
      this.length += (byte & 0x7f) * 128 ** this.lengthBytes++;
      if ((byte & 0x80) !== 0) {
        // A remaining length has at most four bytes.
        if (this.lengthBytes === 4) return new Error('malformed MQTT remaining length');
        continue;
      }
      if (this.length > this.limit) return new PacketTooLarge(this.length, this.limit);
      this.skip = this.length;
      this.lengthBytes = -1;
    }
    return undefined;
  }
}

/**
 * The socket as aedes sees it: what arrives is scanned before aedes reads it, and a packet that announces a remaining
 * length over the limit closes the connection before its body arrives. aedes' parser would otherwise buffer the
 * whole packet, however large, and copy it several times (aedes has no packet size option: moscajs/aedes#831).
 */
export class SizeLimitedConnection extends Duplex {
  private readonly scanner: FrameScanner;
  /** Not read while held (`holdReading`), whatever aedes asks. */
  private held = false;

  constructor(
    private readonly socket: Socket,
    limit: number,
    onOversize: (error: PacketTooLarge, connection: SizeLimitedConnection) => void,
  ) {
    super({ allowHalfOpen: false });
    this.scanner = new FrameScanner(limit);
    socket.on('data', (chunk: Buffer) => {
      const error = this.scanner.scan(chunk);
      if (error) {
        if (error instanceof PacketTooLarge) onOversize(error, this);
        socket.pause();
        this.destroy(error);
        return;
      }
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
  }

  override _read(): void {
    if (!this.held) this.socket.resume();
  }

  hold(held: boolean): void {
    this.held = held;
    if (held) this.socket.pause();
    else this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.socket.write(chunk)) done();
    else this.socket.once('drain', () => done());
  }

  // mqtt-packet corks the stream while it writes the parts of a packet: they go out in one segment.
  override _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    this.socket.cork();
    let flushed = true;
    for (const { chunk } of chunks) flushed = this.socket.write(chunk);
    this.socket.uncork();
    if (flushed) done();
    else this.socket.once('drain', () => done());
  }

  override _final(done: (error?: Error | null) => void): void {
    this.socket.end(done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.socket.destroy();
    done(error);
  }
}

/**
 * Wraps an accepted socket for aedes with the packet size limit; `onOversize` is told (for the log) before it closes.
 */
export function limitPacketSize(
  socket: Socket,
  limit: number,
  onOversize: (error: PacketTooLarge, connection: Duplex) => void,
): Duplex {
  return new SizeLimitedConnection(socket, limit, onOversize);
}
