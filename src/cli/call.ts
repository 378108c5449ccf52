import { Command, InvalidArgumentError, Option } from 'commander';
import chalk from 'chalk';
import { STATUS_CODES } from 'node:http';
import { readFile } from 'node:fs/promises';
import { DEFAULT_EMULATOR_URL } from '../client/defaults.js';
import type { ClientResponse } from '../client/http-client.js';
import { acceptedScopes } from '../auth/scopes.js';
import { adminTokenFor, CliError, runningUrl, urlOption } from './shared.js';

const USAGE = 2;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

interface CallOptions {
  data?: string;
  header: Record<string, string>;
  token?: string;
  auth?: boolean;
  tenant?: string;
  raw?: boolean;
  include?: boolean;
  list?: boolean;
  url?: string;
  dataDir?: string;
}

function parseHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  if (colon < 1) throw new InvalidArgumentError('expected name:value, for example "If-None-Match: \\"3\\"".');
  return { ...previous, [value.slice(0, colon).trim().toLowerCase()]: value.slice(colon + 1).trim() };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `--data`: inline text, `@file`, or `@-` for stdin. JSON is checked unless another content type is set. */
async function requestBody(data: string | undefined, headers: Record<string, string>): Promise<string | undefined> {
  if (data === undefined) return undefined;
  let text = data;
  if (data === '@-') text = await readStdin();
  else if (data.startsWith('@')) {
    text = await readFile(data.slice(1), 'utf8').catch((err: Error) => {
      throw new CliError(`Cannot read the request body from ${data.slice(1)}: ${err.message}`, USAGE);
    });
  }
  headers['content-type'] ??= 'application/json';
  if (/json/i.test(headers['content-type'])) {
    try {
      JSON.parse(text);
    } catch (err) {
      throw new CliError(
        `--data is not valid JSON (${(err as Error).message}). To send it as is, set a content type: --header "Content-Type: text/plain".`,
        USAGE,
      );
    }
  }
  return text;
}

/** A bare operation path (`/endpoints`) gets its service prefix from the route table the server mounts. */
async function fullPath(method: string, path: string): Promise<string> {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  const { isRoutablePath, resolveBarePath } = await import('../services/operations.js');
  if (isRoutablePath(withSlash)) return withSlash;
  const operation = resolveBarePath(method, withSlash);
  if (!operation) {
    throw new CliError(`No operation matches ${method} ${withSlash}. \`platform-emu call --list\` shows every operation and its path.`, USAGE);
  }
  return `/${operation.service.prefix}/api/v1${withSlash}`;
}

function statusLine(response: ClientResponse): string {
  const text = `${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim();
  const color = response.status >= 500 ? chalk.red : response.status >= 400 ? chalk.yellow : response.status >= 300 ? chalk.cyan : chalk.green;
  return `${color.bold(text)}  ${chalk.dim(`${response.method} ${response.url}`)}`;
}

function printBody(response: ClientResponse, raw: boolean | undefined): void {
  if (response.raw.length === 0) return;
  if (raw || response.json === undefined) {
    process.stdout.write(response.raw);
    return;
  }
  process.stdout.write(`${JSON.stringify(response.json, null, 2)}\n`);
}

async function printOperations(): Promise<void> {
  const { listOperations } = await import('../services/operations.js');
  const operations = listOperations();
  // The scope as a token must carry it (`platform:`, not the spec's `<platform>:`).
  const scopeOf = (scope: string | null) => (scope ? acceptedScopes(scope).join(' | ') : '(no scope)');
  const pathWidth = Math.max(...operations.map((o) => o.fullPath.length));
  const scopeWidth = Math.max(...operations.map((o) => scopeOf(o.route.scope).length));
  const lines = operations.map(
    ({ route, fullPath: path }) => `${route.method.padEnd(7)}${path.padEnd(pathWidth + 2)}${scopeOf(route.scope).padEnd(scopeWidth + 2)}${chalk.dim(route.summary)}\n`,
  );
  // `call --list | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => process.exit(err.code === 'EPIPE' ? 0 : 1));
  process.stdout.write(lines.join(''));
  process.stderr.write(chalk.dim(`${operations.length} operations. Bare paths (without /<prefix>/api/v1) work too.\n`));
}

async function run(method: string | undefined, path: string | undefined, options: CallOptions): Promise<void> {
  if (options.list) return printOperations();
  if (!method || !path) throw new CliError('call needs a method and a path, for example: platform-emu call GET /endpoints (or --list).', USAGE);
  const verb = method.toUpperCase();
  if (!METHODS.includes(verb)) throw new CliError(`Unknown method ${method}; use one of ${METHODS.join(', ')}.`, USAGE);

  const headers = { ...options.header };
  const body = await requestBody(options.data, headers);
  const { EmulatorClient, EmulatorHttpError, EmulatorUnreachableError } = await import('../client/http-client.js');
  const client = new EmulatorClient(runningUrl({ url: options.url, data: options.dataDir }) ?? DEFAULT_EMULATOR_URL, options.token);
  client.adminToken = adminTokenFor(client.baseUrl, { data: options.dataDir });
  try {
    if (options.auth) client.accessToken = await client.issueToken({ tenant: options.tenant });
    const response = await client.request(verb, await fullPath(verb, path), { body, headers });
    process.stderr.write(`${statusLine(response)}\n`);
    if (options.include) {
      for (const [name, value] of Object.entries(response.headers)) process.stderr.write(`${chalk.dim(`${name}:`)} ${value}\n`);
    }
    printBody(response, options.raw);
    if (response.status >= 400) process.exitCode = response.status >= 500 ? 5 : 4;
  } catch (err) {
    if (err instanceof EmulatorUnreachableError || err instanceof EmulatorHttpError) throw new CliError(err.message);
    throw err;
  }
}

export function callCommand(): Command {
  return new Command('call')
    .description('Call any operation of the running emulator and print the answer (JSON pretty-printed, status line on stderr).')
    .argument('[method]', `HTTP method: ${METHODS.join(', ')}`)
    .argument('[path]', 'operation path, with or without the service prefix: /endpoints or /epr/api/v1/endpoints; query strings as usual')
    .addOption(new Option('-d, --data <json|@file>', 'request body: JSON text, @file, or @- for stdin (checked as JSON unless a Content-Type header says otherwise)'))
    .addOption(new Option('-H, --header <name:value>', 'a request header (repeatable)').argParser(parseHeader).default({}, 'none'))
    .addOption(new Option('--token <jwt>', 'bearer token to send').env('PLATFORM_EMU_TOKEN'))
    .addOption(new Option('--auth', 'fetch a test token from the emulator (POST /_emu/token) and send it instead of --token'))
    .addOption(new Option('--tenant <id>', 'tenant of the token --auth fetches (default: the default tenant)'))
    .option('--raw', 'print the body exactly as received')
    .option('-i, --include', 'print the response headers on stderr')
    .option('--list', 'print every operation with its scope and summary, then exit')
    .addOption(urlOption())
    .addOption(new Option('--data-dir <dir>', 'data directory of the emulator to call, when --url is not given').env('PLATFORM_EMU_DATA').default('./.platform-emu'))
    .addHelpText(
      'after',
      `
Exit codes: 0 for 1xx-3xx, 4 for a 4xx answer, 5 for a 5xx answer, 1 when the emulator cannot be reached, 2 for usage errors.
The emulator is found by --url, PLATFORM_EMU_URL, the lock of --data-dir, or else ${DEFAULT_EMULATOR_URL}.

Examples:
  $ platform-emu call GET /endpoints?include=metadata
  $ platform-emu call POST /endpoints --data '{"appVersion":{"name":"smart-meter-v1"}}'
  $ platform-emu call POST '/endpoints/meter-001/commands/reboot?waitTimeout=10' -d '{"delay":1}'
  $ platform-emu call GET /endpoints/meter-001 -H 'If-None-Match: "3"' -i
  $ platform-emu call PUT /app-configs/applications/smart-meter/app-versions/smart-meter-v1 -d @config.json --auth
  $ platform-emu call --list`,
    )
    .action(run);
}
