import { internalContext } from '../../src/emulator.js';
import { describe, expect, it } from 'vitest';
import { deviceConnection } from '../../src/gateway/index.js';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { registerEndpoint, sleep, TestDevice } from './device.js';

describe('pushes reach the connection that speaks for the endpoint, once', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const invoke = (endpointId: string, type: string, payload: unknown) =>
    call('POST', `/cex/api/v1/endpoints/${endpointId}/commands/${type}?waitTimeout=0`, { body: payload });

  it('delivers commands to a client that never subscribed (the platform tutorial client)', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    // Using the token makes this connection the endpoint's speaker; it never sends SUBSCRIBE.
    await device.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    const created = await invoke(endpoint.endpointId, 'reboot', { delay: 5 });
    expect(created.status).toBe(202);
    const push = await device.waitFor((m) => m.topic === `${endpoint.topic('cex')}/command/reboot/status`);
    expect(push.payload).toEqual([{ id: created.body.commandId, payload: { delay: 5 } }]);
    expect(push.qos).toBe(1);
  });

  it('delivers once to a client subscribed through overlapping filters', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    await device.subscribe(`${endpoint.topic('cex')}/command/reboot/+`, 1);
    await device.subscribe(`${endpoint.topic('cex')}/#`);
    await device.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    await invoke(endpoint.endpointId, 'reboot', {});
    const topic = `${endpoint.topic('cex')}/command/reboot/status`;
    await device.waitFor((m) => m.topic === topic);
    await invoke(endpoint.endpointId, 'reboot', { again: true });
    await device.waitFor((m) => m.topic === topic && m.payload.length === 2);
    await sleep(100);
    expect(device.onTopic(topic).map((m) => m.payload.length)).toEqual([1, 2]);
  });

  it('reaches a watcher that only subscribed (mosquitto_sub) and the speaker alike', async () => {
    const endpoint = await registerEndpoint(emulator);
    const watcher = await TestDevice.connect(emulator);
    await watcher.subscribe(`${endpoint.topic('cex')}/#`);
    const speaker = await TestDevice.connect(emulator);
    await speaker.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    await invoke(endpoint.endpointId, 'beep', 'x');
    const topic = `${endpoint.topic('cex')}/command/beep/status`;
    await watcher.waitFor((m) => m.topic === topic);
    await speaker.waitFor((m) => m.topic === topic);
    await sleep(100);
    expect([watcher.onTopic(topic).length, speaker.onTopic(topic).length]).toEqual([1, 1]);
  });

  it('pushes on the observe request topic too, until observe:false stops all pushes of that type', async () => {
    const endpoint = await registerEndpoint(emulator);
    const device = await TestDevice.connect(emulator);
    const base = `${endpoint.topic('cex')}/command/ping`;
    const observe = await device.request(base, { observe: true });
    expect(observe.payload).toEqual([]);
    const created = await invoke(endpoint.endpointId, 'ping', { n: 1 });
    const pushed = await device.waitFor((m) => m.topic === `${observe.requestTopic}/status` && m.payload.length === 1);
    expect(pushed.payload).toEqual([{ id: created.body.commandId, payload: { n: 1 } }]);
    await device.waitFor((m) => m.topic === `${base}/status`);

    await device.request(base, { observe: false });
    await invoke(endpoint.endpointId, 'ping', { n: 2 });
    await sleep(150);
    expect(device.onTopic(`${base}/status`)).toHaveLength(1);
    expect(device.onTopic(`${observe.requestTopic}/status`)).toHaveLength(2);
  });

  it('goes to the connection that used the token last', async () => {
    const endpoint = await registerEndpoint(emulator);
    const first = await TestDevice.connect(emulator);
    const second = await TestDevice.connect(emulator);
    await first.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    await second.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    await invoke(endpoint.endpointId, 'reboot', {});
    await second.waitFor((m) => m.topic.endsWith('/command/reboot/status'));
    await sleep(100);
    expect(first.messages.filter((m) => m.topic.endsWith('/command/reboot/status'))).toHaveLength(0);
  });
});

describe('connection state per endpoint', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);

  it('is online while an MQTT connection speaks for the endpoint, with the last time it was seen', async () => {
    const endpoint = await registerEndpoint(emulator);
    expect(deviceConnection(internalContext(emulator), endpoint.endpointId)).toBeUndefined();
    const device = await TestDevice.connect(emulator, `client-${endpoint.endpointId}`);
    await device.request(`kp1/smart-meter-v1/tsx/${endpoint.token}`);
    const online = deviceConnection(internalContext(emulator), endpoint.endpointId)!;
    expect(online).toMatchObject({ online: true, transport: 'mqtt', clientId: `client-${endpoint.endpointId}` });
    expect((await call('GET', '/_emu/health')).body.mqtt.onlineEndpoints).toBeGreaterThanOrEqual(1);

    await device.close();
    await sleep(100);
    const offline = deviceConnection(internalContext(emulator), endpoint.endpointId)!;
    expect(offline).toMatchObject({ online: false, lastSeen: online.lastSeen });

    await call('POST', `/kp1/smart-meter-v1/tsx/${endpoint.token}`);
    expect(deviceConnection(internalContext(emulator), endpoint.endpointId)).toMatchObject({
      online: false,
      transport: 'http',
    });
  });
});
