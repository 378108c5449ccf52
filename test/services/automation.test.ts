import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { internalContext, startEmulator } from '../../src/emulator.js';
import { mailWaiterCount, MAX_CAPTURED_MAIL } from '../../src/services/automation/mail.js';
import { api, startTestEmulator, tokenFor } from '../helpers/emulator.js';

const AC = '/automation/api/v1';
const EMAIL = `${AC}/notification-types/email/recipients`;

describe('automation connector', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const mailTo = async (address: string) =>
    (await call('GET', `/_emu/mail?to=${encodeURIComponent(address)}`)).body as any[];
  const pathOf = (url: string) => url.slice(emulator.url.length);

  it('is listed by GET /app-manager/api/v1/service-instances under /automation', async () => {
    const instances = (await call('GET', '/app-manager/api/v1/service-instances')).body as any[];
    expect(instances.filter((i) => i.urlPrefix === '/automation')).toEqual([
      expect.objectContaining({ name: 'automation', serviceGroup: 'device' }),
    ]);
  });

  it('GET /automations lists the two types, the e-mail one with its schema', async () => {
    const response = await call('GET', `${AC}/automations`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { automationType: 'command-invocation' },
      {
        automationType: 'email-notification',
        schema: {
          type: 'object',
          required: ['recipient', 'subject', 'text'],
          properties: { recipient: { type: 'string' }, subject: { type: 'string' }, text: { type: 'string' } },
        },
      },
    ]);
  });

  it('creates an UNVERIFIED recipient: 201 with Location, readable there, listed with its state', async () => {
    const created = await call('POST', EMAIL, { body: { recipient: 'ops@acme.test' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), recipient: 'ops@acme.test', state: 'UNVERIFIED' });
    expect(created.headers.get('location')).toBe(`${emulator.url}${EMAIL}/${created.body.id}`);
    expect((await call('GET', pathOf(created.headers.get('location')!))).body).toEqual(created.body);
    expect((await call('GET', EMAIL)).body).toContainEqual(created.body);
    expect((await call('GET', `${EMAIL}?state=UNVERIFIED`)).body).toContainEqual(created.body);
    expect((await call('GET', `${EMAIL}?state=VERIFIED`)).body).not.toContainEqual(created.body);
  });

  it.each([
    [{ recipient: 'not-an-address' }, /recipient must match format "email"/],
    [{ recipient: '' }, /recipient must match format "email"/],
    [{ recipient: 42 }, /recipient must be a string/],
    [{ recipient: `${'a'.repeat(250)}@b.test` }, /recipient must NOT have more than 254 characters/],
    [{}, /recipient is required/],
  ])('400 for %j, and nothing is created or sent', async (body, message) => {
    const before = (await call('GET', '/_emu/mail')).body.length;
    const response = await call('POST', EMAIL, { body });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await call('GET', '/_emu/mail')).body).toHaveLength(before);
  });

  it('409 for an address that is a recipient already (any case)', async () => {
    expect((await call('POST', EMAIL, { body: { recipient: 'twice@acme.test' } })).status).toBe(201);
    const again = await call('POST', EMAIL, { body: { recipient: 'TWICE@acme.test' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already a recipient of email notifications/);
  });

  it('404 for an unknown notification type on every recipient operation', async () => {
    const base = `${AC}/notification-types/sms/recipients`;
    for (const [method, path, body] of [
      ['GET', base],
      ['POST', base, { recipient: 'a@acme.test' }],
      ['GET', `${base}/1`],
      ['DELETE', `${base}/1`],
      ['POST', `${base}/1/verification`],
      ['GET', `${base}/1/verification/token`],
      ['PUT', `${base}/verify`, [1]],
    ] as const) {
      const response = await call(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.message).toMatch(/There is no notification type sms/);
    }
  });

  it('get, delete: 404 for an unknown id, 400 for one that is not a number, 204 then gone', async () => {
    expect((await call('GET', `${EMAIL}/999999`)).status).toBe(404);
    expect((await call('DELETE', `${EMAIL}/999999`)).status).toBe(404);
    const bad = await call('GET', `${EMAIL}/abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/recipientId must be a whole number/);
    expect((await call('GET', `${EMAIL}?state=MAYBE`)).status).toBe(400);
    const created = await call('POST', EMAIL, { body: { recipient: 'gone@acme.test' } });
    expect((await call('DELETE', `${EMAIL}/${created.body.id}`)).status).toBe(204);
    expect((await call('GET', `${EMAIL}/${created.body.id}`)).status).toBe(404);
  });

  it('captures the verification e-mail; its link verifies the recipient', async () => {
    const created = await call('POST', EMAIL, { body: { recipient: 'loop@acme.test' } });
    const [mail] = await mailTo('loop@acme.test');
    expect(mail).toEqual({
      id: expect.any(Number),
      tenantId: 'acme',
      to: 'loop@acme.test',
      subject: expect.any(String),
      text: expect.stringContaining(mail.links[0]),
      links: [
        expect.stringMatching(new RegExp(`^${emulator.url}${EMAIL}/${created.body.id}/verification/[A-Za-z0-9_-]+$`)),
      ],
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const opened = await call('GET', pathOf(mail.links[0]));
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ id: created.body.id, recipient: 'loop@acme.test', state: 'VERIFIED' });
    expect((await call('GET', `${EMAIL}/${created.body.id}`)).body.state).toBe('VERIFIED');
    // Opening the link again still answers 200.
    expect((await call('GET', pathOf(mail.links[0]))).status).toBe(200);
  });

  it('a wrong token is 400, an unknown recipient 404', async () => {
    const created = await call('POST', EMAIL, { body: { recipient: 'wrong-token@acme.test' } });
    const wrong = await call('GET', `${EMAIL}/${created.body.id}/verification/not-the-token`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/not valid/);
    expect((await call('GET', `${EMAIL}/999999/verification/x`)).status).toBe(404);
    expect((await call('GET', `${EMAIL}/${created.body.id}`)).body.state).toBe('UNVERIFIED');
  });

  it(
    'resend sends a new mail whose link replaces the old one; a verified recipient has nothing to ' + 'resend',
    async () => {
      const created = await call('POST', EMAIL, { body: { recipient: 'resend@acme.test' } });
      const resent = await call('POST', `${EMAIL}/${created.body.id}/verification`);
      expect(resent.status).toBe(200);
      expect(resent.body).toEqual(created.body);
      const [first, second] = await mailTo('resend@acme.test');
      expect(second.id).toBeGreaterThan(first.id);
      expect(second.links[0]).not.toBe(first.links[0]);
      expect((await call('GET', pathOf(first.links[0]))).status).toBe(400);
      expect((await call('GET', pathOf(second.links[0]))).status).toBe(200);
      const again = await call('POST', `${EMAIL}/${created.body.id}/verification`);
      expect(again.status).toBe(400);
      expect(again.body.message).toMatch(/verified already/);
      expect((await call('POST', `${EMAIL}/999999/verification`)).status).toBe(404);
    },
  );

  it('PUT /verify verifies all listed ids, or none when one is unknown', async () => {
    const a = (await call('POST', EMAIL, { body: { recipient: 'a@verify.test' } })).body;
    const b = (await call('POST', EMAIL, { body: { recipient: 'b@verify.test' } })).body;
    const partial = await call('PUT', `${EMAIL}/verify`, { body: [a.id, 999999] });
    expect(partial.status).toBe(404);
    expect(partial.body.message).toMatch(/999999/);
    expect((await call('GET', `${EMAIL}/${a.id}`)).body.state).toBe('UNVERIFIED');
    const done = await call('PUT', `${EMAIL}/verify`, { body: [a.id, b.id] });
    expect(done.status).toBe(200);
    expect(done.body).toEqual([
      { ...a, state: 'VERIFIED' },
      { ...b, state: 'VERIFIED' },
    ]);
    expect((await call('GET', `${EMAIL}?state=VERIFIED`)).body).toEqual(expect.arrayContaining(done.body));
    for (const body of [[], ['1'], [1.5], { ids: [1] }]) {
      expect((await call('PUT', `${EMAIL}/verify`, { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  describe('the captured mail under /_emu/mail', () => {
    it('lists newest last, filters by address, and DELETE forgets it all', async () => {
      const own = await startTestEmulator();
      const emu = api(own);
      for (const address of ['one@x.test', 'two@x.test', 'three@x.test'])
        await emu('POST', EMAIL, { body: { recipient: address } });
      const all = (await emu('GET', '/_emu/mail')).body;
      expect(all.map((m: any) => m.to)).toEqual(['one@x.test', 'two@x.test', 'three@x.test']);
      expect(all.map((m: any) => m.id)).toEqual([...all.map((m: any) => m.id)].sort((x: number, y: number) => x - y));
      expect((await emu('GET', '/_emu/mail?to=TWO@x.test')).body.map((m: any) => m.to)).toEqual(['two@x.test']);
      expect((await emu('DELETE', '/_emu/mail')).status).toBe(204);
      expect((await emu('GET', '/_emu/mail')).body).toEqual([]);
      expect((await emu('GET', '/_emu/mail?wait=61')).status).toBe(400);
    });

    it('a long poll answers when the next mail is captured, and with none when its wait runs out', async () => {
      const own = await startTestEmulator();
      const emu = api(own);
      const poll = emu('GET', '/_emu/mail?after=0&wait=30');
      const created = await emu('POST', EMAIL, { body: { recipient: 'next@x.test' } });
      const answered = await poll;
      expect(answered.status).toBe(200);
      expect(answered.body.map((m: any) => m.to)).toEqual(['next@x.test']);
      const newest = answered.body[0].id;
      const empty = await emu('GET', `/_emu/mail?after=${newest}&wait=1`);
      expect(empty.body).toEqual([]);
      expect(mailWaiterCount(internalContext(own))).toBe(0);
      expect(created.status).toBe(201);
    });

    it('a reset forgets the mail; a poll past the newest id then counts from the newest there is', async () => {
      const own = await startTestEmulator();
      const emu = api(own);
      await emu('POST', EMAIL, { body: { recipient: 'before-reset@x.test' } });
      expect((await emu('POST', '/_emu/reset')).status).toBe(204);
      expect((await emu('GET', '/_emu/mail')).body).toEqual([]);
      const poll = emu('GET', '/_emu/mail?after=50&wait=30');
      await emu('POST', EMAIL, { body: { recipient: 'after-reset@x.test' } });
      expect((await poll).body.map((m: any) => m.to)).toEqual(['after-reset@x.test']);
    });

    it(`keeps the newest ${MAX_CAPTURED_MAIL} mails`, async () => {
      const own = await startTestEmulator();
      const emu = api(own);
      const id = (await emu('POST', EMAIL, { body: { recipient: 'many@x.test' } })).body.id;
      for (let round = 0; round < MAX_CAPTURED_MAIL / 50; round++) {
        await Promise.all(Array.from({ length: 50 }, () => emu('POST', `${EMAIL}/${id}/verification`)));
      }
      const mail = (await emu('GET', '/_emu/mail')).body;
      expect(mail).toHaveLength(MAX_CAPTURED_MAIL);
      expect(mail[0].id).toBe(2);
      expect(mail.at(-1).id).toBe(MAX_CAPTURED_MAIL + 1);
    }, 60_000);

    it('survives a restart on the same data directory', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'platform-emu-mail-'));
      try {
        const options = { port: 0, mqttPort: 0, dataDir: dir, log: () => undefined };
        const first = await startEmulator(options);
        await api(first)('POST', EMAIL, { body: { recipient: 'durable@x.test' } });
        await first.stop();
        const second = await startEmulator(options);
        const mail = (await api(second)('GET', '/_emu/mail')).body;
        await second.stop();
        expect(mail.map((m: any) => m.to)).toEqual(['durable@x.test']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('with auth on', async () => {
    const secured = await startTestEmulator({ auth: 'on' });
    const emu = api(secured);
    const acme = await tokenFor(secured, { tenant: 'acme' });
    const globex = await tokenFor(secured, { tenant: 'globex' });

    it('the link needs no token; other tenants see nothing of the recipient', async () => {
      const created = await emu('POST', EMAIL, { body: { recipient: 'secure@acme.test' }, token: acme });
      expect(created.status).toBe(201);
      expect((await emu('GET', `${EMAIL}/${created.body.id}`, { token: globex })).status).toBe(404);
      expect((await emu('GET', EMAIL, { token: globex })).body).toEqual([]);
      expect((await emu('PUT', `${EMAIL}/verify`, { body: [created.body.id], token: globex })).status).toBe(404);
      expect((await emu('DELETE', `${EMAIL}/${created.body.id}`, { token: globex })).status).toBe(404);
      const [mail] = (await emu('GET', '/_emu/mail?to=secure@acme.test', { token: secured.adminToken })).body;
      const opened = await emu('GET', mail.links[0].slice(secured.url.length));
      expect(opened.status).toBe(200);
      expect(opened.body.state).toBe('VERIFIED');
      expect((await emu('GET', `${EMAIL}/${created.body.id}`, { token: acme })).body.state).toBe('VERIFIED');
    });
  });
});
