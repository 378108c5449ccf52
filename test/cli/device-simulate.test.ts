import { describe, expect, it } from 'vitest';
import { api, startTestEmulator } from '../helpers/emulator.js';
import { cli, rulesFile, simulateArgs, simulator } from '../helpers/device-cli.js';

describe('platform-emu device', async () => {
  const emulator = await startTestEmulator();
  const url = ['--url', emulator.url];
  const rest = api(emulator);

  it(
    'simulate --rules answers a command issued with `call` as the rules file says; SIGINT stops it ' + 'cleanly',
    async () => {
      const rules = await rulesFile({
        commands: { setTemp: { reasonPhrase: 'Set', payload: { setpoint: '{{payload.value}}' } } },
      });
      const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-001-token', '--rules', rules, ...url);
      const connected = await sim.next('connected');
      expect(connected).toMatchObject({
        token: 'meter-001-token',
        appVersion: 'smart-meter-v1',
        mqttUrl: emulator.mqttUrl,
      });

      const called = await cli(
        'call',
        'POST',
        '/endpoints/meter-001/commands/setTemp?waitTimeout=20',
        '--data',
        '{"value":21.5}',
        ...url,
      );
      expect(called.exitCode).toBe(0);
      expect(JSON.parse(called.stdout)).toEqual({ setpoint: 21.5 });
      const command = await sim.next('command', (e) => e.commandType === 'setTemp');
      expect(command).toMatchObject({
        token: 'meter-001-token',
        payload: { value: 21.5 },
        commandId: expect.any(Number),
      });
      const answered = await sim.next('answered', (e) => e.commandType === 'setTemp');
      expect(answered).toMatchObject({
        commandId: command.commandId,
        statusCode: 200,
        reasonPhrase: 'Set',
        payload: { setpoint: 21.5 },
      });
      expect(typeof answered.time).toBe('string');

      const result = await sim.interrupt();
      expect(result.exitCode).toBe(0);
      expect(sim.events.at(-1)).toMatchObject({ event: 'stopped', devices: 1, answered: 1 });
    },
  );

  it('simulate --register --fleet expands the token and id patterns; --metadata lands in the register', async () => {
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--register',
      '--fleet',
      '2',
      '--token',
      'fleet-{n}-token',
      '--id',
      'fleet-{nn}',
      '--metadata',
      '{"sim":true}',
      ...url,
    );
    const registered = [
      await sim.next('registered', (e) => e.endpointId === 'fleet-01'),
      await sim.next('registered', (e) => e.endpointId === 'fleet-02'),
    ];
    expect(registered.map((e) => e.token)).toEqual(['fleet-1-token', 'fleet-2-token']);
    await sim.next('metadata', (e) => e.token === 'fleet-2-token');
    // The software the devices are offered and apply adds `softwareVersion`, perhaps later.
    expect((await rest('GET', '/epr/api/v1/endpoints/fleet-01?include=metadata')).body.metadata).toMatchObject({
      sim: true,
    });

    const echoed = await rest('POST', '/cex/api/v1/endpoints/fleet-02/commands/locate?waitTimeout=20', {
      body: { precise: true },
    });
    expect(echoed.body).toEqual({ precise: true });
    // The caller has its answer once the emulator stored the result; the device counts it when the server acknowledges.
    await sim.next('answered', (e) => e.token === 'fleet-2-token');
    expect((await sim.interrupt()).exitCode).toBe(0);
    expect(sim.events.at(-1)).toMatchObject({ event: 'stopped', devices: 2, answered: 1 });
  });

  it(
    'simulate shows the configuration and software it applies as events; --reject-config and --no-software ' +
      'change that',
    async () => {
      const sim = simulator('--app-version', 'smart-meter-v1', '--token', 'meter-002-token', ...url);
      await sim.next('software', (e) => e.version === '');
      const offers = sim.events
        .filter((e) => e.event.startsWith('config') || e.event.startsWith('software'))
        .map(({ time: _time, token: _token, ...e }) => e);
      expect(offers).toEqual([
        { event: 'config', configId: expect.any(String), config: { reportingIntervalSeconds: 900, tariff: 'flat' } },
        { event: 'config-applied', configId: offers[0].configId },
        { event: 'software', version: '1.0.0', specification: expect.any(Object) },
        { event: 'software-applied', version: '1.0.0' },
        { event: 'software', version: '1.1.0', specification: expect.any(Object) },
        { event: 'software-applied', version: '1.1.0' },
        { event: 'software', version: '', specification: null },
      ]);
      expect((await sim.interrupt()).exitCode).toBe(0);

      const rejecting = simulator(
        '--app-version',
        'smart-meter-v1',
        '--token',
        'meter-003-token',
        '--reject-config',
        '--no-software',
        ...url,
      );
      expect(await rejecting.next('config-rejected')).toMatchObject({
        statusCode: 400,
        reasonPhrase: 'Rejected by the simulated device.',
      });
      // A command answered after start: no software was asked for.
      expect(
        (await rest('POST', '/cex/api/v1/endpoints/meter-003/commands/ping?waitTimeout=20', { body: {} })).status,
      ).toBe(200);
      await rejecting.next('answered');
      expect(rejecting.events.map((e) => e.event)).toEqual([
        'connected',
        'config',
        'config-rejected',
        'command',
        'answered',
      ]);
      expect((await rejecting.interrupt()).exitCode).toBe(0);

      const both = await cli(
        ...simulateArgs('smart-meter-v1', 'meter-003-token', '--no-config', '--reject-config', ...url),
      );
      expect(both.exitCode).toBe(2);
      expect(both.stderr).toContain("'--reject-config' cannot be used with option '--no-config'");
    },
  );

  it('simulate --config-name observes and applies a named configuration beside the default one', async () => {
    const put = await rest('PUT', '/ecr/api/v1/endpoints/tracker-002/app-versions/tracker-v1?configName=network', {
      body: { apn: 'internet' },
    });
    expect(put.status).toBe(201);
    const configId = put.headers.get('etag')!.replace(/"/g, '');
    const sim = simulator(
      '--app-version',
      'tracker-v1',
      '--token',
      'tracker-002-token',
      '--config-name',
      'network',
      '--no-software',
      ...url,
    );
    expect(await sim.next('config-applied', (e) => e.configName === 'network')).toMatchObject({ configId });
    await sim.next('config-applied', (e) => e.configName === undefined);
    expect((await sim.interrupt()).exitCode).toBe(0);
  });
});
