import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { indexSubscriptions, SubscriptionIndex, type TopicMatcher } from '../../src/gateway/subscription-index.js';
import { startTestEmulator } from '../helpers/emulator.js';

/** The matcher of an aedes broker's own emitter (qlobber, as aedes configures it): what the index must agree with. */
async function aedesMatcher(): Promise<TopicMatcher> {
  const broker = await Aedes.createBroker();
  const matcher = (broker as unknown as { mq: { _matcher: TopicMatcher } }).mq._matcher;
  await new Promise<void>((resolve) => broker.close(() => resolve()));
  return matcher;
}

/** A small deterministic generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)];

/** Random adds and removes of `filter()`s, each followed by ten topics matched by the index and by aedes's matcher. */
async function compareWithAedes(next: () => number, filter: () => string): Promise<void> {
  const word = () => pick(next, WORDS);
  const topic = () => Array.from({ length: 1 + Math.floor(next() * 8) }, word).join('/');
  const oracle = await aedesMatcher();
  const index = new SubscriptionIndex(await aedesMatcher());
  const added: [string, string][] = [];
  const sorted = (values: unknown[]) => (values as string[]).toSorted();
  let compared = 0;
  for (let step = 0; step < 1500; step++) {
    if (added.length > 0 && next() < 0.3) {
      const [f, value] = pick(next, added);
      const all = next() < 0.2;
      oracle.remove(f, all ? undefined : value);
      index.remove(f, all ? undefined : value);
      added.splice(
        added.findLastIndex(([g, v]) => g === f && (all || v === value)),
        1,
      );
    } else {
      const entry: [string, string] = [filter(), `v${Math.floor(next() * 40)}`];
      oracle.add(...entry);
      index.add(...entry);
      added.push(entry);
    }
    for (let i = 0; i < 10; i++) {
      const t = next() < 0.5 ? topic() : pick(next, added)?.[0].replaceAll('+', word()).replace('#', word());
      if (t === undefined) continue;
      expect(sorted(index.match(t)), `${t} after step ${step}`).toEqual(sorted(oracle.match(t)));
      compared += oracle.match(t).length;
    }
  }
  // The run matched something, often: the comparison is not of empty lists.
  expect(compared).toBeGreaterThan(1000);
}

const WORDS = ['kp1', 'a', 'b', '', 'a+b'];

describe('the index of subscriptions in front of aedes’s matcher', () => {
  it('matches what aedes’s own matcher matches, through adds and removes of every kind of filter', async () => {
    const next = random(33);
    const level = (wildcards: boolean) => (wildcards && next() < 0.3 ? '+' : pick(next, WORDS));
    await compareWithAedes(next, () => {
      const levels = Array.from({ length: 1 + Math.floor(next() * 7) }, (_, i) => level(i >= 4 || next() < 0.15));
      if (next() < 0.15) levels.push('#');
      return levels.join('/');
    });
  });

  it('matches KP1 topics as aedes does while no filter outside the index begins with kp1, + or #', async () => {
    // The index then answers KP1 topics without asking qlobber: every filter under kp1/ is a device's.
    const next = random(34);
    const level = () => (next() < 0.3 ? '+' : pick(next, WORDS));
    await compareWithAedes(next, () => {
      const rest = Array.from({ length: Math.floor(next() * 4) }, level);
      if (next() < 0.5) return ['kp1', pick(next, WORDS), pick(next, WORDS), pick(next, WORDS), ...rest].join('/');
      return [pick(next, ['a', 'b']), ...rest, ...(next() < 0.15 ? ['#'] : [])].join('/');
    });
  });

  it('asks aedes’s matcher of KP1 topics again once a filter it keeps begins with kp1, + or #', async () => {
    for (const other of ['+/v/dcx/t/#', '#', 'kp1/+/dcx/t/json/+/status']) {
      const index = new SubscriptionIndex(await aedesMatcher());
      index.add('kp1/v/dcx/t/json/+/status', 'device');
      expect(index.match('kp1/v/dcx/t/json/1/status')).toEqual(['device']);
      index.add(other, 'other');
      expect(index.match('kp1/v/dcx/t/json/1/status').toSorted(), other).toEqual(['device', 'other']);
    }
  });

  it('stops asking aedes’s matcher of KP1 topics once the last filter it keeps that could match one is removed', async () => {
    const qlobber = await aedesMatcher();
    let asked = 0;
    const index = new SubscriptionIndex({
      add: (filter, value) => qlobber.add(filter, value),
      remove: (filter, value) => qlobber.remove(filter, value),
      match: (topic) => (asked++, qlobber.match(topic)),
    });
    const topic = 'kp1/v/dcx/t/json/1/status';
    const matched = () => {
      const before = asked;
      const values = (index.match(topic) as string[]).toSorted();
      return { values, asked: asked > before };
    };
    index.add('kp1/v/dcx/t/json/+/status', 'device');
    expect(matched()).toEqual({ values: ['device'], asked: false });
    index.add('#', 'a');
    index.add('#', 'b');
    index.add('+/v/dcx/t/#', 'c');
    expect(matched()).toEqual({ values: ['a', 'b', 'c', 'device'], asked: true });
    index.remove('#', 'never added');
    index.remove('#', 'a');
    expect(matched()).toEqual({ values: ['b', 'c', 'device'], asked: true });
    index.remove('#');
    expect(matched()).toEqual({ values: ['c', 'device'], asked: true });
    index.remove('+/v/dcx/t/#', 'c');
    expect(matched()).toEqual({ values: ['device'], asked: false });
    // Topics outside kp1/ are asked of it throughout.
    index.add('a/#', 'd');
    expect(index.match('a/b')).toEqual(['d']);
    expect(matched()).toEqual({ values: ['device'], asked: false });
  });

  it('goes in front of an aedes broker’s matcher; an emitter that keeps none where it looks is left as it is', async () => {
    const broker = await Aedes.createBroker();
    try {
      expect(indexSubscriptions(broker)).toBe(true);
      expect((broker as unknown as { mq: { _matcher: unknown } }).mq._matcher).toBeInstanceOf(SubscriptionIndex);
    } finally {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    }
    const elsewhere = { mq: { matcher: { match: () => [] } } };
    expect(indexSubscriptions(elsewhere)).toBe(false);
    expect(Object.keys(elsewhere.mq)).toEqual(['matcher']);
    // The emulator's own broker, with the mqemitter this build installs, is indexed: it says nothing of it.
    const lines: string[] = [];
    const emulator = await startTestEmulator({ log: (line) => lines.push(line) });
    expect(emulator.mqttUrl).toMatch(/^mqtt:/);
    expect(lines.filter((line) => line.includes('topic matcher'))).toEqual([]);
  });

  it('delivers through the broker by a device-shaped filter, an empty level included, until unsubscribed', async () => {
    const emulator = await startTestEmulator();
    const connect = () => mqtt.connectAsync(emulator.mqttUrl, { reconnectPeriod: 0 });
    const [indexed, wide, publisher] = await Promise.all([connect(), connect(), connect()]);
    try {
      await indexed.subscribeAsync('lab/one/two/three/+/t');
      await wide.subscribeAsync('lab/#');
      const received = (client: mqtt.MqttClient) => {
        const topics: string[] = [];
        client.on('message', (t) => topics.push(t));
        return topics;
      };
      const byIndexed = received(indexed);
      const byWide = received(wide);
      for (const t of ['lab/one/two/three/x/t', 'lab/one/two/three//t', 'lab/one/two/three/x/t/more'])
        await publisher.publishAsync(t, 'm', { qos: 1 });
      await indexed.unsubscribeAsync('lab/one/two/three/+/t');
      await publisher.publishAsync('lab/one/two/three/y/t', 'm', { qos: 1 });
      // The wide subscriber hears the last publish only after the indexed one would have.
      await expect.poll(() => byWide.length).toBe(4);
      expect(byIndexed).toEqual(['lab/one/two/three/x/t', 'lab/one/two/three//t']);
    } finally {
      await Promise.all([indexed, wide, publisher].map((client) => client.endAsync()));
    }
  });
});
