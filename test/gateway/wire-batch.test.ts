import { describe, expect, it } from 'vitest';
import {
  WireBatch,
  WireMessageReader,
  WireOp,
  readWireMessage,
  type WireMessage,
} from '../../src/gateway/wire-batch.js';

/** A batch whose flushed messages are kept, as the other thread would receive them. */
function batchAndMessages(): { batch: WireBatch; messages: WireMessage[] } {
  const messages: WireMessage[] = [];
  const batch = new WireBatch((message, transfer) => {
    expect(transfer).toEqual([message]);
    messages.push(message);
  });
  return { batch, messages };
}

type Seen = [op: number, id: number, value: number, data?: string, text?: string];

function readAll(message: WireMessage): Seen[] {
  const seen: Seen[] = [];
  readWireMessage(message, (op, id, value, data, text) =>
    seen.push([
      op,
      id,
      value,
      ...(data ? [data.toString('latin1')] : text !== undefined ? [undefined, text] : []),
    ] as Seen),
  );
  return seen;
}

describe('the messages between the main thread and the wire thread', () => {
  it('carry operations, bytes and texts (empty and not ASCII) in their order, in one buffer', () => {
    const { batch, messages } = batchAndMessages();
    batch.addText(WireOp.Open, 1, '::ffff:127.0.0.1');
    batch.data(1, Buffer.from('abc', 'latin1'));
    batch.add(WireOp.Read, 2, 1);
    batch.data(2, Buffer.alloc(0));
    batch.data(2, Buffer.from([0, 255, 10]));
    batch.addText(WireOp.Closed, 1, '');
    batch.addText(WireOp.Closed, 2, 'read ECONNRESET – ü');
    batch.add(WireOp.Oversize, 3, 268_435_455);
    batch.flush();
    batch.flush();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toBeInstanceOf(ArrayBuffer);
    expect(readAll(messages[0])).toEqual([
      [WireOp.Open, 1, 16, undefined, '::ffff:127.0.0.1'],
      [WireOp.Data, 1, 3, 'abc'],
      [WireOp.Read, 2, 1],
      [WireOp.Data, 2, 3, '\u0000\u00ff\n'],
      [WireOp.Closed, 1, 0, undefined, ''],
      [WireOp.Closed, 2, Buffer.byteLength('read ECONNRESET – ü'), undefined, 'read ECONNRESET – ü'],
      [WireOp.Oversize, 3, 268_435_455],
    ]);
  });

  it('are read within a budget of bytes, a Data operation cut where the budget ends', () => {
    const { batch, messages } = batchAndMessages();
    batch.data(7, Buffer.from('0123456789'));
    batch.add(WireOp.End, 7);
    batch.data(8, Buffer.from('xy'));
    batch.flush();
    const reader = new WireMessageReader(messages[0]);
    const parts: Seen[] = [];
    const each = (op: WireOp, id: number, value: number, data?: Buffer) =>
      parts.push([op, id, value, ...(data ? [data.toString()] : [])] as Seen);
    expect(reader.read(each, 4)).toBe(4);
    expect(reader.read(each, 4)).toBe(4);
    expect(reader.done).toBe(false);
    expect(reader.read(each, 100)).toBe(4);
    expect(reader.done).toBe(true);
    expect(parts).toEqual([
      [WireOp.Data, 7, 4, '0123'],
      [WireOp.Data, 7, 4, '4567'],
      [WireOp.Data, 7, 2, '89'],
      [WireOp.End, 7, 0],
      [WireOp.Data, 8, 2, 'xy'],
    ]);
  });

  it('are posted once a turn, and nothing is posted for a turn without operations', async () => {
    const { batch, messages } = batchAndMessages();
    batch.data(1, Buffer.from('a'));
    batch.data(1, Buffer.from('b'));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages.map(readAll)).toEqual([
      [
        [WireOp.Data, 1, 1, 'a'],
        [WireOp.Data, 1, 1, 'b'],
      ],
    ]);
  });
});
