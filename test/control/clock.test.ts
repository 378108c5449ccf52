import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/clock.js';
import { internalContext } from '../../src/emulator.js';
import { COMMAND_CHANGED } from '../../src/server/events.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const HOUR = 3_600_000;

describe('durations', () => {
  it('reads ISO 8601 and short forms, and refuses years, months and nonsense', () => {
    expect(parseDuration('PT1H')).toBe(HOUR);
    expect(parseDuration('P1DT12H30M')).toBe(36.5 * HOUR);
    expect(parseDuration('P2W')).toBe(14 * 24 * HOUR);
    expect(parseDuration('PT0.5S')).toBe(500);
    expect(parseDuration('721h')).toBe(721 * HOUR);
    expect(parseDuration('1h30m')).toBe(1.5 * HOUR);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2d')).toBe(48 * HOUR);
    expect(() => parseDuration('P1M')).toThrow(/years and months/);
    expect(() => parseDuration('P1Y')).toThrow(/years and months/);
    for (const bad of ['', 'P', 'PT', '1x', 'h', '1h junk', '-1h'])
      expect(() => parseDuration(bad), bad).toThrow(/not a duration/);
  });
});

describe('the virtual clock over REST', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const clock = (body: unknown) => call('PUT', '/_emu/clock', { body });

  it('is real at start; now freezes, now with frozen:false offsets, advance moves, real goes back', async () => {
    const start = (await call('GET', '/_emu/clock')).body;
    expect(start.mode).toBe('real');
    expect(Math.abs(Date.parse(start.now) - Date.now())).toBeLessThan(60_000);

    expect((await clock({ now: '2030-01-01T00:00:00Z' })).body).toEqual({
      now: '2030-01-01T00:00:00.000Z',
      mode: 'frozen',
    });
    expect((await call('GET', '/_emu/clock')).body.now).toBe('2030-01-01T00:00:00.000Z');
    expect((await clock({ advance: 'PT1H' })).body).toEqual({ now: '2030-01-01T01:00:00.000Z', mode: 'frozen' });
    expect((await clock({ advance: '90s' })).body.now).toBe('2030-01-01T01:01:30.000Z');

    const running = (await clock({ now: '2031-06-01T00:00:00Z', frozen: false })).body;
    expect(running.mode).toBe('offset');
    expect(Date.parse(running.now) - Date.parse('2031-06-01T00:00:00Z')).toBeLessThan(60_000);
    expect((await clock({ frozen: true })).body.mode).toBe('frozen');

    expect((await clock({ real: true })).body.mode).toBe('real');
    const advanced = (await clock({ advance: '2d' })).body;
    expect(advanced.mode).toBe('offset');
    expect(Date.parse(advanced.now) - Date.now()).toBeGreaterThan(47 * HOUR);
    await clock({ real: true });
  });

  it('answers 400 to anything else, and does not move', async () => {
    for (const body of [
      {},
      { now: 'tomorrow' },
      { now: '2030-13-45T00:00:00Z' },
      { advance: '1 fortnight' },
      { advance: 'P1M' },
      { advance: 5 },
      { real: false },
      { now: '2030-01-01T00:00:00Z', advance: '1h' },
      { advance: '1h', frozen: true },
      { speed: 2 },
    ]) {
      const response = await clock(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toBeTruthy();
    }
    expect((await call('GET', '/_emu/clock')).body.mode).toBe('real');
  });

  it('dates what the services write, and is shown in health', async () => {
    await clock({ now: '2030-05-05T05:05:05Z' });
    const created = await call('POST', '/epr/api/v1/endpoints', {
      body: { appVersion: { name: 'tracker-v1' }, endpointId: 'dated-1' },
    });
    expect(created.status).toBe(201);
    expect((await call('GET', '/epr/api/v1/endpoints/dated-1')).body.createdDate).toBe('2030-05-05T05:05:05.000Z');
    expect((await call('GET', '/_emu/health')).body.clock).toEqual({ now: '2030-05-05T05:05:05.000Z', mode: 'frozen' });
    await clock({ real: true });
  });
});

describe('what depends on time follows the clock', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const command = (id: number) => call('GET', `/cex/api/v1/endpoints/meter-001/commands/reboot/${id}`);

  it("advancing past a command's TTL expires it at once (and a waiting REST call answers)", async () => {
    await emulator.clock.set('2030-01-01T00:00:00Z');
    const created = await call(
      'POST',
      '/cex/api/v1/endpoints/meter-001/commands/reboot?commandTtl=600000&waitTimeout=0',
      { body: {} },
    );
    expect(created.status).toBe(202);
    const id = created.body.commandId;
    expect((await command(id)).body).toMatchObject({ status: 'pending', createdAt: '2030-01-01T00:00:00.000Z' });

    const pending = new Promise((resolve) => internalContext(emulator).events.once(COMMAND_CHANGED, resolve));
    const waiting = call('POST', `/cex/api/v1/endpoints/meter-001/commands/ping?commandTtl=600000&waitTimeout=30`, {
      body: {},
    });
    await pending;
    await emulator.clock.advance('PT11M');
    expect((await command(id)).body).toMatchObject({ status: 'expired', updatedAt: '2030-01-01T00:11:00.000Z' });
    expect((await waiting).status).toBe(202);
    await emulator.clock.real();
  });

  it('advancing 721 hours deletes commands past their retention of 720 hours', async () => {
    const created = await call('POST', '/cex/api/v1/endpoints/meter-001/commands/reboot?waitTimeout=0', { body: {} });
    const id = created.body.commandId;
    expect((await call('PUT', '/_emu/clock', { body: { advance: '719h' } })).status).toBe(200);
    expect((await command(id)).status).toBe(200);
    expect((await call('PUT', '/_emu/clock', { body: { advance: '2h' } })).status).toBe(200);
    expect((await command(id)).status).toBe(404);
    await emulator.clock.real();
  });

  it('tokens expire by the clock: a one-hour token is refused two hours later', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const token = await tokenFor(secured, { ttlSeconds: 3600 });
    const read = () => api(secured)('GET', '/epr/api/v1/endpoints', { token });
    expect((await read()).status).toBe(200);
    await secured.clock.advance('2h');
    const expired = await read();
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('expired');
    await secured.clock.real();
    expect((await read()).status).toBe(200);
  });

  it("a token's iat and exp are the clock's", async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    await secured.clock.set('2030-01-01T00:00:00Z');
    const claims = JSON.parse(Buffer.from(secured.token({ ttlSeconds: 60 }).split('.')[1], 'base64url').toString());
    expect(claims.iat).toBe(Date.parse('2030-01-01T00:00:00Z') / 1000);
    expect(claims.exp).toBe(claims.iat + 60);
    expect((await api(secured)('GET', '/epr/api/v1/endpoints', { token: secured.token() })).status).toBe(200);
  });
});
