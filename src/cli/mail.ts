import { Command, Option } from 'commander';
import chalk from './colours.js';
import { DEFAULT_EMULATOR_URL } from '../client/defaults.js';
import { CliError, dataOption, emulatorJson, runningUrl, urlOption } from './shared.js';

interface MailOptions {
  follow?: boolean;
  json?: boolean;
  to?: string;
  clear?: boolean;
  smtp?: string;
  data: string;
  url?: string;
}

export interface CapturedMail {
  id: number;
  tenantId?: string;
  to: string;
  subject: string;
  text: string;
  links: string[];
  sentAt: string;
}

/** How long one long poll of `--follow` waits before asking again (the server allows up to 60 s). */
const POLL_SECONDS = 25;

function printMail(mail: CapturedMail, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(mail)}\n`);
    return;
  }
  const lines = [
    chalk.bold(`#${mail.id}  ${mail.sentAt}${mail.tenantId ? chalk.dim(`  tenant ${mail.tenantId}`) : ''}`),
    `${chalk.dim('To:')}      ${mail.to}`,
    `${chalk.dim('Subject:')} ${mail.subject}`,
    '',
    mail.text.trimEnd(),
    ...(mail.links.length > 0 ? ['', chalk.dim('Links:'), ...mail.links.map((l) => `  ${l}`)] : []),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams(
    Object.entries(params)
      .filter((e): e is [string, string | number] => e[1] !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A control-plane request, with the admin token of the emulator at `url` when it needs one (`--auth on`). */
async function request<T>(url: string, method: string, path: string, options: MailOptions): Promise<T> {
  const { EmulatorHttpError, EmulatorUnreachableError } = await import('../client/http-client.js');
  try {
    return await emulatorJson<T>(url, method, path, undefined, options);
  } catch (err) {
    if (err instanceof EmulatorUnreachableError || err instanceof EmulatorHttpError) throw new CliError(err.message);
    throw err;
  }
}

/**
 * Delivers captured mail to an SMTP server as well (a local catcher such as Mailpit): plain SMTP, no TLS, no
 * login. The sender is the emulator's own address; the message keeps the captured subject and text.
 */
async function smtpRelay(address: string): Promise<(mail: CapturedMail) => Promise<void>> {
  const match = /^(.+):(\d{1,5})$/.exec(address);
  if (!match || Number(match[2]) > 65535)
    throw new CliError(`--smtp takes host:port, like 127.0.0.1:1025; got ${address}.`, 2);
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: match[1].replace(/^\[|\]$/g, ''),
    port: Number(match[2]),
    secure: false,
    ignoreTLS: true,
  });
  return async (mail) => {
    try {
      await transport.sendMail({
        from: 'platform-emu <no-reply@platform-emu.local>',
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        headers: { 'X-Platform-Emu-Mail-Id': String(mail.id) },
      });
    } catch (err) {
      throw new CliError(`Cannot deliver mail #${mail.id} to the SMTP server ${address}: ${(err as Error).message}`);
    }
  };
}

/** One long poll; undefined when the emulator cannot be reached any more (it stopped while we waited). */
async function pollOnce(url: string, path: string, options: MailOptions): Promise<CapturedMail[] | undefined> {
  const { EmulatorHttpError, EmulatorUnreachableError } = await import('../client/http-client.js');
  try {
    return await emulatorJson<CapturedMail[]>(url, 'GET', path, undefined, options);
  } catch (err) {
    if (err instanceof EmulatorUnreachableError) return undefined;
    throw err instanceof EmulatorHttpError ? new CliError(err.message) : err;
  }
}

/** Waits for new mail with long polls (`GET /_emu/mail?after=&wait=`): no request until the previous one answers. */
async function follow(
  url: string,
  options: MailOptions,
  after: number,
  deliver: (mail: CapturedMail) => Promise<void>,
): Promise<void> {
  const stop = () => process.exit(0);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let last = after;
  for (;;) {
    const fresh = await pollOnce(
      url,
      `/_emu/mail${query({ after: last, wait: POLL_SECONDS, to: options.to })}`,
      options,
    );
    // The emulator went away (stopped, or killed): the end of the stream, as `logs --follow` ends.
    if (!fresh) {
      process.stderr.write('The emulator stopped; no more mail will come.\n');
      return;
    }
    for (const mail of fresh) {
      printMail(mail, options.json);
      await deliver(mail);
    }
    // An empty answer may mean the state was replaced (reset, import) and the ids started again: the server counts
    // from its newest mail when `after` is past it, so asking again with the same `after` is right.
    if (fresh.length > 0) last = fresh.at(-1)!.id;
  }
}

async function run(options: MailOptions): Promise<void> {
  const url = runningUrl(options) ?? DEFAULT_EMULATOR_URL;
  if (options.clear) {
    await request(url, 'DELETE', '/_emu/mail', options);
    process.stderr.write('The captured mail was cleared.\n');
    return;
  }
  const relay = options.smtp ? await smtpRelay(options.smtp) : undefined;
  const deliver = async (mail: CapturedMail) => {
    if (relay) await relay(mail);
  };
  const mails = await request<CapturedMail[]>(url, 'GET', `/_emu/mail${query({ to: options.to })}`, options);
  if (options.json && !options.follow) {
    process.stdout.write(`${JSON.stringify(mails, null, 2)}\n`);
  } else {
    for (const mail of mails) printMail(mail, options.json);
  }
  // With --follow, only mail that arrives from now on is relayed; a one-shot run relays what it lists.
  if (!options.follow) {
    for (const mail of mails) await deliver(mail);
    if (mails.length === 0 && !options.json) process.stderr.write('No captured mail.\n');
    return;
  }
  if (!options.json) process.stderr.write(chalk.dim('Waiting for new mail (Ctrl-C to stop)...\n'));
  await follow(url, options, mails.at(-1)?.id ?? 0, deliver);
}

export function mailCommand(): Command {
  return new Command('mail')
    .description(
      'Print the e-mails the emulator captured instead of sending them (verification mails of notification ' +
        'recipients).',
    )
    .option('-f, --follow', 'keep running and print new mail as it is captured')
    .option('--json', 'print JSON: an array, or with --follow one mail per line')
    .addOption(new Option('--to <address>', 'only mail to this address'))
    .option('--clear', 'forget all captured mail')
    .addOption(
      new Option(
        '--smtp <host:port>',
        'also deliver the mail to this SMTP server (a local mail catcher); with --follow, only new mail',
      ),
    )
    .addOption(dataOption())
    .addOption(urlOption())
    .addHelpText(
      'after',
      `
The emulator is found by --url, PLATFORM_EMU_URL, the lock of --data, or else ${DEFAULT_EMULATOR_URL}.

Examples:
  $ platform-emu mail                                   # every captured mail, newest last
  $ platform-emu mail --follow --to ops@example.com     # wait for the next ones
  $ platform-emu mail --json | jq -r '.[-1].links[0]'   # the newest verification link
  $ platform-emu mail --follow --smtp 127.0.0.1:1025    # forward new mail to a local catcher
  $ platform-emu mail --clear`,
    )
    .action(run);
}
