import { Duplex, Transform, type TransformCallback } from 'node:stream';
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

/**
 * Follows the MQTT framing of the bytes it passes on (fixed header byte, remaining length, body) and fails as soon
 * as a packet announces a remaining length over the limit, before its body is read: aedes' parser would otherwise
 * buffer the whole packet, however large, and copy it several times.
 */
class PacketSizeGuard extends Transform {
  /** Body bytes of the current packet still to pass. */
  private skip = 0;
  /** -1 while a fixed header byte is expected; otherwise how many remaining-length bytes were read. */
  private lengthBytes = -1;
  private length = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
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
        if (this.lengthBytes === 4) return done(new Error('malformed MQTT remaining length'));
        continue;
      }
      if (this.length > this.limit) return done(new PacketTooLarge(this.length, this.limit));
      this.skip = this.length;
      this.lengthBytes = -1;
    }
    done(null, chunk);
  }
}

/**
 * The socket as aedes should see it: reads pass through the size guard, writes go straight to the socket. An
 * oversize packet destroys this connection only; `onOversize` is told (for the log) before it closes.
 */
export function limitPacketSize(socket: Socket, limit: number, onOversize: (error: PacketTooLarge, connection: Duplex) => void): Duplex {
  const guard = new PacketSizeGuard(limit);
  const connection = Duplex.from({ readable: socket.pipe(guard), writable: socket });
  guard.once('error', (err) => {
    if (err instanceof PacketTooLarge) onOversize(err, connection);
    socket.destroy();
  });
  return connection;
}
