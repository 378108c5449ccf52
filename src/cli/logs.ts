import { Command, Option } from 'commander';
import type { JournalEntry } from '../index.js';
import { controlClient, controlTargetOptions, type ControlTarget } from './control-client.js';
import { formatEntry } from './request-log.js';
import { CliError, parseCount } from './shared.js';

interface LogsOptions extends ControlTarget {
  follow?: boolean;
  json?: boolean;
  service?: string;
  path?: string;
  status?: string;
  endpoint?: string;
  type?: 'http' | 'kp1';
  limit?: number;
}

/** The requests `logs` itself makes: left out, unless --path or --service asks for the control plane. */
const OWN_READS = /^\/_emu\/(?:requests|events)(?:[/?]|$)/;
const isOwnRead = (entry: JournalEntry) => entry.type === 'http' && OWN_READS.test(entry.path ?? '');

const print = (entry: JournalEntry, json: boolean | undefined) =>
  process.stdout.write(`${json ? JSON.stringify(entry) : formatEntry(entry)}\n`);

function filterQuery(options: LogsOptions): URLSearchParams {
  const query = new URLSearchParams();
  const fields: Array<[string, string | number | undefined]> = [
    ['service', options.service],
    ['path', options.path],
    ['status', options.status],
    ['endpointId', options.endpoint],
    ['type', options.type],
  ];
  for (const [name, value] of fields) if (value !== undefined) query.set(name, String(value));
  return query;
}

/** Reads the server-sent events of `/_emu/events` and prints the request and KP1 entries, until the stream ends. */
async function follow(
  baseUrl: string,
  adminToken: string | undefined,
  query: URLSearchParams,
  json: boolean | undefined,
  shows: (entry: JournalEntry) => boolean,
): Promise<void> {
  query.set('types', 'request,kp1');
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (adminToken) headers.authorization = `Bearer ${adminToken}`;
  const { request } = await import('undici');
  const response = await request(`${baseUrl}/_emu/events?${query}`, { headers }).catch((err: Error) => {
    throw new CliError(`Cannot reach the emulator at ${baseUrl}: ${err.message}.`);
  });
  if (response.statusCode !== 200)
    throw new CliError(`GET /_emu/events answered ${response.statusCode}: ${await response.body.text()}`);
  const { serverSentEvents } = await import('../client/event-stream.js');
  for await (const { event, data } of serverSentEvents(response.body)) {
    if ((event === 'request' || event === 'kp1') && shows(data as JournalEntry)) print(data as JournalEntry, json);
    if (event === 'dropped')
      process.stderr.write(`(${(data as { count: number }).count} entries skipped: this reader fell behind)\n`);
  }
  process.stderr.write('The emulator closed the stream (it stopped).\n');
}

async function run(options: LogsOptions): Promise<void> {
  const client = await controlClient(options);
  const query = filterQuery(options);
  const list = new URLSearchParams(query);
  // --limit 0: no past entries (the list is still read, for where the journal stands).
  if (options.limit !== undefined) list.set('limit', String(Math.max(options.limit, 1)));
  const asksForControlPlane = options.path !== undefined || options.service === '_emu';
  const shows = (entry: JournalEntry) => asksForControlPlane || !isOwnRead(entry);
  const response = await client.request('GET', `/_emu/requests?${list}`).catch((err: Error) => {
    throw new CliError(err.message);
  });
  if (response.status !== 200) {
    const message = (response.json as { message?: string } | undefined)?.message ?? response.raw.toString('utf8');
    throw new CliError(`GET /_emu/requests answered ${response.status}: ${message}`);
  }
  const past = options.limit === 0 ? [] : (response.json as JournalEntry[]);
  for (const entry of past) if (shows(entry)) print(entry, options.json);
  if (!options.follow) return;
  query.set('after', response.headers['x-journal-seq'] ?? '0');
  await follow(client.baseUrl, client.adminToken, query, options.json, shows);
}

export function logsCommand(): Command {
  const command = new Command('logs')
    .description(
      "Print a running emulator's request journal: REST requests and KP1 messages, with time, status, tenant " +
        'and latency (never a secret).',
    )
    .option('-f, --follow', 'keep printing new entries as they happen')
    .option('--json', 'one JSON object per line')
    .option('--service <name>', 'only this first path level: epr, cex, _emu, auth, kp1, ...')
    .option('--path <prefix>', 'only paths (or KP1 topics) that start with this')
    .option('--status <status>', 'only this status (404) or class (4xx)')
    .option('--endpoint <endpointId>', 'only requests and messages about this endpoint')
    .addOption(new Option('--type <type>', 'only REST requests or only KP1 messages').choices(['http', 'kp1']))
    .addOption(
      new Option(
        '--limit <n>',
        'how many past entries to print first (default 100; 0 for none, with --follow)',
      ).argParser(parseCount),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ platform-emu logs                              # the last 100 requests and KP1 messages
  $ platform-emu logs --follow --status 5xx
  $ platform-emu logs --endpoint meter-001 --json | jq .`,
    );
  for (const option of controlTargetOptions()) command.addOption(option);
  return command.action(run);
}
