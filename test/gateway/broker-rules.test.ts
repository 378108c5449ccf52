import { internalContext } from '../../src/emulator.js';
import { describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { isPlatformTopic, refusalOf } from '../../src/gateway/broker-rules.js';
import { deviceConnection } from '../../src/gateway/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { logRecorder, registerEndpoint, TestDevice, type Received } from './device.js';

const kp1 = (messages: Received[]) => messages.filter((m) => m.topic.startsWith('kp1/'));

describe('the broker topic rules', () => {
  it('reserves the reply and push topics of every KP1 extension for the emulator', () => {
    const reserved = [
      'kp1/v/cex/t/command/reboot/status',
      'kp1/v/cex/t/command/reboot/7/status',
      'kp1/v/cex/t/command/reboot/7/error',
      'kp1/v/cex/t/command/status/status',
      'kp1/v/cex/t/result/reboot/8/status',
      'kp1/v/epmx/t/get/1/status',
      'kp1/v/epmx/t/update/keys/2/error',
      'kp1/v/epmx/t/get/keys/status',
      'kp1/v/tsx/t/3/status',
      'kp1/v/tsx/t/status',
      'kp1/v/dcx/t/json/4/status',
      'kp1/v/dcx/t/plain/temperature/status',
      'kp1/v/cmx/t/config/json/status',
      'kp1/v/cmx/t/config/json/5/status',
      'kp1/v/cmx/t/applied/json/6/error',
      'kp1/v/cmx_ota/t/config/json/status',
      'kp1/v/cmx_ota/t/config/json/9/status',
      'kp1/v/bcx/t/token/10/status',
    ];
    for (const topic of reserved) expect([topic, isPlatformTopic(topic)]).toEqual([topic, true]);
    const requests = [
      'kp1/v/cex/t/command/reboot',
      'kp1/v/cex/t/command/reboot/7',
      // A command type may be called "status" or "error".
      'kp1/v/cex/t/command/status',
      'kp1/v/cex/t/result/error/3',
      'kp1/v/tsx/t',
      // The fourth level is the token, whatever it is called.
      'kp1/v/tsx/status',
      'kp1/v/epmx/t/get',
      'other/a/b/c/status',
    ];
    for (const topic of requests) expect([topic, isPlatformTopic(topic)]).toEqual([topic, false]);
  });

  it('refuses subscriptions under kp1/ that do not name a token, and $SYS/', () => {
    for (const filter of [
      'kp1/#',
      'kp1/+',
      'kp1/+/#',
      'kp1/+/cex/+/#',
      'kp1/v/cex/+/command/+/status',
      'kp1/v/cex/+',
      'kp1/v/cex/#',
    ]) {
      expect([filter, refusalOf(filter)]).toEqual([filter, expect.stringMatching(/must name the endpoint token/)]);
    }
    for (const filter of ['$SYS/#', '$SYS/+/new/subscribes']) {
      expect([filter, refusalOf(filter)]).toEqual([
        filter,
        expect.stringMatching(/subscriptions, endpoint tokens included/),
      ]);
    }
    // aedes has no shared subscriptions: `$share/g/kp1/#` is a literal filter that matches no kp1/ topic.
    for (const filter of [
      '#',
      '+/#',
      '+/+/+/+/#',
      'kp1',
      'other/#',
      'kp1/v/cex/tok/#',
      'kp1/+/+/tok/#',
      'kp1/v/tsx/tok',
      // A token of one character, at the end of the filter or before the next level.
      'kp1/v/tsx/t',
      'kp1/v/+/t/#',
      '$share/g/kp1/#',
    ]) {
      expect([filter, refusalOf(filter)]).toEqual([filter, undefined]);
    }
  });
});

describe('devices are kept apart on the broker', async () => {
  const logs = logRecorder();
  const emulator = await startTestEmulator({ log: logs.log });
  const call = api(emulator);
  const invoke = (endpointId: string, type: string, payload: unknown, wait = 0) =>
    call('POST', `/cex/api/v1/endpoints/${endpointId}/commands/${type}?waitTimeout=${wait}`, { body: payload });

  /** Runs a device through a command exchange: poll, invoke over REST, push, result, REST answer. */
  async function commandExchange(device: TestDevice, endpoint: Awaited<ReturnType<typeof registerEndpoint>>) {
    const base = `${endpoint.topic('cex')}`;
    expect((await device.request(`${base}/command/reboot`, {})).payload).toEqual([]);
    const answer = invoke(endpoint.endpointId, 'reboot', { delay: 1 }, 10);
    const push = await device.waitFor((m) => m.topic === `${base}/command/reboot/status`);
    const [{ id }] = push.payload as Array<{ id: number }>;
    expect(
      (await device.request(`${base}/result/reboot`, [{ id, statusCode: 200, payload: { rebooted: true } }])).ok,
    ).toBe(true);
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ rebooted: true });
  }

  it(
    'gives eavesdroppers nothing of kp1/: kp1/# and kp1/+/cex/+/# are refused, # and +/+/+/+/# get the other ' +
      'topics only',
    async () => {
      const endpoint = await registerEndpoint(emulator);
      const wide = await TestDevice.connect(emulator);
      await wide.subscribe('#');
      await wide.subscribe('+/+/+/+/#');
      const refused = await TestDevice.connect(emulator);
      await expect(refused.subscribe('kp1/#')).rejects.toMatchObject({ packet: { granted: [128] } });
      await expect(refused.subscribe('kp1/+/cex/+/#')).rejects.toMatchObject({ packet: { granted: [128] } });
      // $SYS/ would name the subscriptions of the others, their tokens with them.
      await expect(refused.subscribe('$SYS/#')).rejects.toMatchObject({ packet: { granted: [128] } });
      expect(
        logs.lines.some((line) =>
          line.includes(
            'subscribed to "kp1/#": refused (0x80): under kp1/ a subscription must name the endpoint token',
          ),
        ),
      ).toBe(true);

      const device = await TestDevice.connect(emulator);
      await commandExchange(device, endpoint);

      // The refused client is still connected and served.
      expect((await refused.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`)).ok).toBe(true);
      // Deliveries to one client keep their order: once these arrive, anything of kp1/ would have arrived before.
      await device.publish('other/a/b/c/done', 'x');
      await wide.waitFor((m) => m.topic === 'other/a/b/c/done');
      expect(wide.onTopic('other/a/b/c/done')).toHaveLength(1);
      expect(kp1(wide.messages)).toEqual([]);
      // Its request made it the connection that speaks for the endpoint: it is told what the endpoint has not applied.
      expect(
        kp1(refused.messages)
          .map((m) => m.topic)
          .sort(),
      ).toEqual([
        `kp1/smart-meter-v1/cmx/${endpoint.token}/config/json/status`,
        `kp1/smart-meter-v1/cmx_ota/${endpoint.token}/config/json/status`,
        `kp1/smart-meter-v1/tsx/${endpoint.token}/1/status`,
      ]);
    },
  );

  it(
    'delivers everything of an endpoint to a subscription naming its token, as the mosquitto session of ' +
      'docs/devices.md',
    async () => {
      const endpoint = await registerEndpoint(emulator);
      const base = endpoint.topic('cex');
      const watcher = await TestDevice.connect(emulator);
      await watcher.subscribe(`kp1/smart-meter-v1/cex/${endpoint.token}/#`);
      const other = await registerEndpoint(emulator);
      const otherWatcher = await TestDevice.connect(emulator);
      await otherWatcher.subscribe(`kp1/+/+/${other.token}/#`);

      // Each mosquitto_pub is a connection of its own that closes after its publish.
      const poll = await TestDevice.connect(emulator);
      await poll.publish(`${base}/command/reboot/1`, '{}');
      await watcher.waitFor((m) => m.topic === `${base}/command/reboot/1/status`);
      await poll.close();
      const answer = invoke(endpoint.endpointId, 'reboot', { delay: 1 }, 10);
      const push = await watcher.waitFor((m) => m.topic === `${base}/command/reboot/status`);
      const [{ id }] = push.payload as Array<{ id: number }>;
      const result = await TestDevice.connect(emulator);
      await result.publish(`${base}/result/reboot/2`, [{ id, statusCode: 200, payload: { rebooted: true } }]);
      expect((await answer).body).toEqual({ rebooted: true });
      await watcher.waitFor((m) => m.topic === `${base}/result/reboot/2/status`);

      expect(watcher.messages.map((m) => [m.topic, m.payload])).toEqual([
        [`${base}/command/reboot/1`, {}],
        [`${base}/command/reboot/1/status`, []],
        [`${base}/command/reboot/status`, [{ id, payload: { delay: 1 } }]],
        [`${base}/result/reboot/2`, [{ id, statusCode: 200, payload: { rebooted: true } }]],
        [`${base}/result/reboot/2/status`, undefined],
      ]);
      // A watcher of another token saw none of it.
      const otherDevice = await TestDevice.connect(emulator);
      await otherDevice.request(`kp1/smart-meter-v1/tsx/${other.token}`);
      await otherWatcher.waitFor((m) => m.topic.endsWith('/1/status'));
      expect(otherWatcher.messages.every((m) => m.topic.includes(other.token))).toBe(true);
    },
  );

  it('drops replies and pushes forged by a client, and the real exchange goes on', async () => {
    const endpoint = await registerEndpoint(emulator);
    const base = endpoint.topic('cex');
    const device = await TestDevice.connect(emulator);
    await device.subscribe(`${base}/#`);
    const observe = await device.request(`${base}/command/reboot`, { observe: true });
    const watcher = await TestDevice.connect(emulator);
    await watcher.subscribe(`${base}/#`);

    const forger = await TestDevice.connect(emulator);
    const forged = [`${base}/command/reboot/status`, `${observe.requestTopic}/status`, `${base}/result/reboot/5/error`];
    for (const topic of forged) await forger.publish(topic, [{ id: 999, payload: { evil: true } }], 1);
    for (const topic of forged)
      await logs.waitFor(
        new RegExp(`published on ${topic}, a reply or push topic only the emulator publishes on: dropped`),
      );

    // The forger stays connected (its QoS 1 publishes were acknowledged), and the real exchange works.
    const own = await registerEndpoint(emulator);
    expect((await forger.request(`kp1/smart-meter-v1/tsx/${own.token}`)).ok).toBe(true);
    const answer = invoke(endpoint.endpointId, 'reboot', {}, 10);
    const push = await device.waitFor((m) => m.topic === `${base}/command/reboot/status`);
    const [{ id }] = push.payload as Array<{ id: number }>;
    expect(id).not.toBe(999);
    await device.request(`${base}/result/reboot`, [{ id, statusCode: 200 }]);
    expect((await answer).status).toBe(200);

    for (const client of [device, watcher]) {
      expect(client.messages.filter((m) => JSON.stringify(m.payload ?? '').includes('evil'))).toEqual([]);
    }
    expect(watcher.onTopic(`${base}/command/reboot/status`)).toHaveLength(1);
    // The observe request's reply, then the real push on its topic.
    expect(device.onTopic(`${observe.requestTopic}/status`).map((m) => m.payload)).toEqual([[], [{ id, payload: {} }]]);
  });

  it('drops a last will on a push topic', async () => {
    const endpoint = await registerEndpoint(emulator);
    const topic = `${endpoint.topic('cex')}/command/reboot/status`;
    const watcher = await TestDevice.connect(emulator);
    await watcher.subscribe(`kp1/smart-meter-v1/+/${endpoint.token}/#`);
    const dying = await mqtt.connectAsync(emulator.mqttUrl, {
      reconnectPeriod: 0,
      will: { topic, payload: Buffer.from('[{"id":1}]'), qos: 0, retain: true },
    });
    dying.stream.destroy();
    await logs.waitFor(
      new RegExp(`published on ${topic}, a reply or push topic only the emulator publishes on: dropped`),
    );
    const device = await TestDevice.connect(emulator);
    await device.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    await watcher.waitFor((m) => m.topic.endsWith('/tsx/' + endpoint.token + '/1'));
    expect(watcher.onTopic(topic)).toEqual([]);
  });

  it('answers a last will that is a request, and leaves its endpoint offline', async () => {
    const endpoint = await registerEndpoint(emulator);
    const topic = `${endpoint.topic('epmx')}/update/keys/1`;
    const watcher = await TestDevice.connect(emulator);
    await watcher.subscribe(`${endpoint.topic('epmx')}/#`);
    const dying = await mqtt.connectAsync(emulator.mqttUrl, {
      reconnectPeriod: 0,
      will: { topic, payload: Buffer.from('{"online":false}'), qos: 0, retain: false },
    });
    dying.stream.destroy();
    await watcher.waitFor((m) => m.topic === `${topic}/status`);
    const metadata = await call('GET', `/epr/api/v1/endpoints/${endpoint.endpointId}?include=metadata`);
    expect(metadata.body.metadata).toEqual({ online: false });
    // The will is published after the connection closed: it did not make the endpoint look online.
    expect(deviceConnection(internalContext(emulator), endpoint.endpointId)).toMatchObject({
      online: false,
      transport: 'mqtt',
    });
  });

  it(
    'keeps nothing retained under kp1/: a retained request is answered and delivered unretained; other topics ' +
      'retain',
    async () => {
      const endpoint = await registerEndpoint(emulator);
      const path = `kp1/smart-meter-v1/tsx/${endpoint.token}`;
      const watcher = await TestDevice.connect(emulator);
      await watcher.subscribe(`${path}/#`);
      const retainFlags: Array<[string, boolean]> = [];
      watcher.client.on('message', (topic, _body, packet) => retainFlags.push([topic, packet.retain]));

      const device = await TestDevice.connect(emulator);
      const reply = device.waitFor((m) => m.topic === `${path}/1/status`);
      await device.client.publishAsync(`${path}/1`, '', { qos: 1, retain: true });
      expect((await reply).payload).toMatchObject({ timestamp: expect.any(Number) });
      await device.client.publishAsync('other/retained', 'kept', { qos: 1, retain: true });
      await watcher.waitFor((m) => m.topic === `${path}/1/status`);
      expect(retainFlags).toEqual([
        [`${path}/1`, false],
        [`${path}/1/status`, false],
      ]);
      await logs.waitFor(new RegExp(`retained message on ${path}/1: nothing under kp1/ is retained`));

      // A later subscriber gets the retained message outside kp1/, and none under it.
      const late = await TestDevice.connect(emulator);
      const lateRetained: string[] = [];
      late.client.on('message', (topic, _body, packet) => packet.retain && lateRetained.push(topic));
      await late.subscribe(`${path}/#`);
      await late.subscribe('other/#');
      await late.waitFor((m) => m.topic === 'other/retained');
      await late.request(path);
      expect(lateRetained).toEqual(['other/retained']);
    },
  );

  it('answers a device that subscribes before it first publishes exactly once per reply and push', async () => {
    for (const filters of [['command/+/status', 'command/reboot/+/+', 'result/reboot/+/+'], ['#'], ['kp1/#']]) {
      const endpoint = await registerEndpoint(emulator);
      const base = endpoint.topic('cex');
      const device = await TestDevice.connect(emulator);
      for (const filter of filters) {
        const subscribed = device.subscribe(
          filter.startsWith('command') || filter.startsWith('result') ? `${base}/${filter}` : filter,
        );
        if (filter === 'kp1/#') await expect(subscribed).rejects.toMatchObject({ packet: { granted: [128] } });
        else await subscribed;
      }
      await commandExchange(device, endpoint);
      // Replies to one connection keep their order: after this one, a duplicate of any earlier message would be in.
      await device.request(`${base}/command/reboot`, {});
      const topics = kp1(device.messages).map((m) => m.topic);
      // The configuration and software pending, pushed once when the connection started speaking for the endpoint.
      const connectPushes = [endpoint.topic('cmx'), endpoint.topic('cmx_ota')].map(
        (ext) => `${ext}/config/json/status`,
      );
      expect([
        filters,
        topics.filter((t) => !connectPushes.includes(t)),
        topics.filter((t) => connectPushes.includes(t)).sort(),
      ]).toEqual([
        filters,
        [
          `${base}/command/reboot/1/status`,
          `${base}/command/reboot/status`,
          `${base}/result/reboot/2/status`,
          `${base}/command/reboot/3/status`,
        ],
        connectPushes,
      ]);
    }
  });
});

describe('the MQTT packet size limit', async () => {
  const bodyLimit = 16 * 1024;
  const logs = logRecorder();
  const emulator = await startTestEmulator({ bodyLimit, log: logs.log });

  it('closes only the connection that sends a packet over the body limit plus 128 KiB', async () => {
    const endpoint = await registerEndpoint(emulator);
    const bystander = await TestDevice.connect(emulator);
    await bystander.subscribe('big/#');
    const sender = await TestDevice.connect(emulator, `oversize-${process.pid}`);
    const closed = new Promise<void>((resolve) => sender.client.once('close', () => resolve()));
    // The client reports the reset (ECONNRESET or EPIPE, as the timing goes); only the close matters here.
    sender.client.on('error', () => undefined);
    const limit = bodyLimit + 128 * 1024;
    sender.client.publish('big/topic', Buffer.alloc(limit + 1));
    await closed;
    // The packet: two bytes of topic length, the topic and the payload.
    await logs.waitFor(
      new RegExp(
        `MQTT client oversize-${process.pid} sent an MQTT packet of ${limit + 1 + 2 + 'big/topic'.length} ` +
          `bytes, over the limit of ${limit}`,
      ),
    );

    // The others keep working, with payloads up to the body limit.
    const value = 'x'.repeat(bodyLimit - 20);
    const update = await bystander.request(`${endpoint.topic('epmx')}/update/keys`, { note: value });
    expect(update).toMatchObject({ ok: true, payload: undefined });
    await bystander.publish('big/ok', Buffer.alloc(bodyLimit));
    const received = await bystander.waitFor((m) => m.topic === 'big/ok');
    expect(received.payload).toHaveLength(bodyLimit);
    expect(bystander.onTopic('big/topic')).toEqual([]);
  });
});
