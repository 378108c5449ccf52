import { execa } from 'execa';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cli, jsonLines } from '../helpers/device-cli.js';
import { api, startTestEmulator } from '../helpers/emulator.js';

const EMAIL = '/automation/api/v1/notification-types/email/recipients';

/** `mail --follow --json` in the background: the mails it prints, and a way to wait for one. */
function follower(...args: string[]) {
  const proc = execa('node', [BIN, 'mail', '--follow', '--json', ...args], {
    reject: false,
    env: cleanEnv(),
    extendEnv: false,
  });
  const lines = jsonLines<any>(proc, 'mail --follow');
  return {
    printed: lines.printed,
    /** The first mail to this address the command prints (or printed already); fails if it exits first. */
    mailTo: (to: string): Promise<any> => lines.next((mail) => mail.to === to, `mail to ${to}`),
    async stop() {
      proc.kill('SIGTERM');
      return lines.exited;
    },
  };
}

describe('platform-emu mail', async () => {
  const emulator = await startTestEmulator();
  const call = api(emulator);
  const url = ['--url', emulator.url];

  it(
    'follows the whole loop: a recipient is created, its mail printed, the link opened, the recipient ' + 'VERIFIED',
    async () => {
      const follow = follower(...url);
      try {
        const created = await call('POST', EMAIL, { body: { recipient: 'follow@acme.test' } });
        const mail = await follow.mailTo('follow@acme.test');
        expect(mail).toMatchObject({
          to: 'follow@acme.test',
          links: [expect.stringContaining(`/recipients/${created.body.id}/verification/`)],
        });
        const opened = await call('GET', mail.links[0].slice(emulator.url.length));
        expect(opened.body).toEqual({ id: created.body.id, recipient: 'follow@acme.test', state: 'VERIFIED' });
        // A second mail reaches the same running command.
        await call('POST', EMAIL, { body: { recipient: 'follow-2@acme.test' } });
        expect((await follow.mailTo('follow-2@acme.test')).id).toBeGreaterThan(mail.id);
      } finally {
        const result = await follow.stop();
        expect(result.exitCode === 0 || result.signal === 'SIGTERM').toBe(true);
      }
    },
  );

  it('prints the captured mail as text or as a JSON array, filtered by --to', async () => {
    await call('POST', EMAIL, { body: { recipient: 'print@acme.test' } });
    const text = await cli('mail', '--to', 'print@acme.test', ...url);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('To:      print@acme.test');
    expect(text.stdout).toMatch(/Subject: .+/);
    expect(text.stdout).toMatch(new RegExp(`Links:\\n  ${emulator.url}${EMAIL}/\\d+/verification/`));
    const json = await cli('mail', '--json', '--to', 'print@acme.test', ...url);
    const listed = JSON.parse(json.stdout);
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0]).sort()).toEqual(['id', 'links', 'sentAt', 'subject', 'tenantId', 'text', 'to']);
  });

  it('--clear forgets the mail', async () => {
    const own = await startTestEmulator();
    await api(own)('POST', EMAIL, { body: { recipient: 'clear@acme.test' } });
    const cleared = await cli('mail', '--clear', '--url', own.url);
    expect(cleared.exitCode).toBe(0);
    expect(cleared.stderr).toContain('cleared');
    expect(JSON.parse((await cli('mail', '--json', '--url', own.url)).stdout)).toEqual([]);
  });

  it('--smtp delivers the mail to an SMTP server as well; with --follow, only new mail', async () => {
    const received: Array<{ to: string[]; data: string }> = [];
    let waiters: Array<{ count: number; resolve: () => void }> = [];
    /** Resolves once the SMTP server has received `count` messages. */
    const receivedCount = (count: number) =>
      new Promise<void>((resolve) => (received.length >= count ? resolve() : waiters.push({ count, resolve })));
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, done) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
          done();
          waiters = waiters.filter((w) => !(received.length >= w.count && (w.resolve(), true)));
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const smtp = `127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    try {
      await call('POST', EMAIL, { body: { recipient: 'smtp@acme.test' } });
      const result = await cli('mail', '--to', 'smtp@acme.test', '--smtp', smtp, ...url);
      expect(result.exitCode, result.stderr).toBe(0);
      await receivedCount(1);
      expect(received[0].to).toEqual(['smtp@acme.test']);
      expect(received[0].data).toMatch(/Subject: Confirm your e-mail address/);
      // The body is quoted-printable: soft line breaks are `=` at the end of a line.
      expect(received[0].data.replace(/=\r?\n/g, '')).toMatch(new RegExp(`${emulator.url}${EMAIL}/\\d+/verification/`));

      const follow = follower('--smtp', smtp, ...url);
      try {
        // Listed again by the follower, but not delivered again: only new mail is.
        await follow.mailTo('smtp@acme.test');
        await call('POST', EMAIL, { body: { recipient: 'smtp-new@acme.test' } });
        await follow.mailTo('smtp-new@acme.test');
        await receivedCount(2);
        expect(received.map((r) => r.to[0])).toEqual(['smtp@acme.test', 'smtp-new@acme.test']);
      } finally {
        await follow.stop();
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('usage and reachability errors', async () => {
    const bad = await cli('mail', '--smtp', 'nowhere', ...url);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--smtp takes host:port');
    const unreachable = await cli('mail', '--url', 'http://127.0.0.1:9');
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toContain('Cannot reach the emulator');
  });
});
