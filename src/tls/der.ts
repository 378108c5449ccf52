import { isIP } from 'node:net';

/*
 * The few DER encodings (ITU-T X.690) that the emulator's certificates are made of: a certificate has one fixed shape
 * here (certificates.ts), so writing its bytes takes these functions, not an ASN.1 library (loading one cost every
 * start on a new data directory a quarter of its module loading; docs/performance.md, 1a).
 */

/** A tag, its length (short form under 128, else long form) and the content. */
function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

export const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
export const boolean = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
export const octetString = (content: Buffer) => tlv(0x04, content);
export const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
/** `[n]` EXPLICIT: the tagged value whole inside a constructed context tag. */
export const explicit = (n: number, content: Buffer) => tlv(0xa0 | n, content);

/** A non-negative INTEGER from its big-endian bytes (a leading zero byte where the top bit is set, none extra). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1] < 0x80) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (value: number) => unsignedInteger(Buffer.from([value]));

/** An OBJECT IDENTIFIER from its dotted form. */
export function objectIdentifier(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128 = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      base128.unshift((value & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A BIT STRING of whole bytes (a signature, a DER-encoded key). */
export const bitString = (content: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));

/** A named-bit BIT STRING (key usage): bit 0 is the first bit; DER drops the trailing zero bits. */
export function namedBits(bits: readonly number[]): Buffer {
  const last = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] |= 0x80 >> (bit % 8);
  return tlv(0x03, Buffer.concat([Buffer.from([7 - (last % 8)]), bytes]));
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, both in seconds and UTC. */
export function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  const year = date.getUTCFullYear();
  return year < 2050 && year >= 1950 ? tlv(0x17, Buffer.from(digits.slice(2))) : tlv(0x18, Buffer.from(digits));
}

/** A GeneralName of a subject alternative name: `iPAddress` [7] for an address, else `dNSName` [2]. */
export function generalName(name: string): Buffer {
  const family = isIP(name);
  if (family === 0) return tlv(0x82, Buffer.from(name, 'ascii'));
  return tlv(0x87, family === 4 ? Buffer.from(name.split('.').map(Number)) : ipv6Bytes(name));
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  let left = groups(head);
  let right = groups(tail);
  // An embedded IPv4 address (`::ffff:127.0.0.1`) is the last two groups.
  const expand = (list: string[]) => {
    const last = list[list.length - 1];
    if (!last?.includes('.')) return list;
    const [a, b, c, d] = last.split('.').map(Number);
    return [...list.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  };
  if (right.length > 0) right = expand(right);
  else left = expand(left);
  const zeros = address.includes('::') ? 8 - left.length - right.length : 0;
  const all = [...left, ...Array<string>(zeros).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
