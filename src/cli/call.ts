import { Command, InvalidArgumentError, Option } from 'commander';
import chalk from './colours.js';
import { STATUS_CODES } from 'node:http';
import { readFile } from 'node:fs/promises';
import { DEFAULT_EMULATOR_URL, START_DEFAULTS } from '../client/defaults.js';
import type { ClientResponse, EmulatorClient } from '../client/http-client.js';
import { deviceAnswerOf, deviceExitCode, type DeviceAnswer } from './device-answer.js';
import { adminTokenFor, CliError, runningUrl, urlOption, withHint } from './shared.js';

const USAGE = 2;
/** An answer below 400 that is not one `--expect` names: the command was accepted but is not done (a 202). */
const UNEXPECTED_STATUS = 6;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

interface CallOptions {
  body?: string;
  /** Deprecated spelling of `body`. */
  data?: string;
  expect?: number[];
  header: Record<string, string>;
  token?: string;
  auth?: boolean;
  tenant?: string;
  raw?: boolean;
  include?: boolean;
  list?: boolean;
  json?: boolean;
  validate: boolean;
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

function parseStatuses(value: string, previous: number[] = []): number[] {
  const statuses = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  if (statuses.length === 0 || statuses.some((n) => !Number.isInteger(n) || n < 100 || n > 599)) {
    throw new InvalidArgumentError('expected HTTP statuses from 100 to 599, for example 200 or 200,204.');
  }
  return [...previous, ...statuses];
}

/** The exit code for an answer: 0, or 4/5 for 4xx/5xx, or 6 for another answer than `--expect` names. */
function exitCodeOf(status: number, expected: number[] | undefined): number {
  if (expected?.includes(status)) return 0;
  if (status >= 500) return 5;
  if (status >= 400) return 4;
  return expected ? UNEXPECTED_STATUS : 0;
}

/** `--body`: inline text, `@file`, or `@-` for stdin. JSON is checked unless another content type is set. */
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
        `--body is not valid JSON (${(err as Error).message}). To send it as is, set a content type: --header ` +
          `"Content-Type: text/plain".`,
        USAGE,
      );
    }
  }
  return text;
}

/** Paths that name where they go: a service prefix, the bare base, the control plane, KP1, OIDC. */
const PLACED_PATH = /^\/(?:(?:api|_emu|kp1|auth)(?:[/?]|$)|[^/?]+\/api\/v1(?:[/?]|$))/;

/**
 * Where a path is sent: as is when it names its place, else (`/endpoints`, an operation path as the spec writes it)
 * under the bare `/api/v1`, where the server picks the service by the route table it mounts. The CLI need not load
 * that table to call an operation.
 */
function targetPath(path: string): { target: string; bare: boolean } {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return PLACED_PATH.test(withSlash)
    ? { target: withSlash, bare: false }
    : { target: `/api/v1${withSlash}`, bare: true };
}

/** A 404 for a bare path that no operation matches at all is a mistyped path: a usage error that points to --list. */
async function checkBarePath(method: string, path: string): Promise<void> {
  const { resolveBarePath } = await import('../services/operations.js');
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  if (!resolveBarePath(method, withSlash)) {
    throw new CliError(
      `No operation matches ${method} ${withSlash}. \`platform-emu call --list\` shows every operation and its path.`,
      USAGE,
    );
  }
}

function statusLine(response: ClientResponse): string {
  const text = `${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim();
  const color =
    response.status >= 500
      ? chalk.red
      : response.status >= 400
        ? chalk.yellow
        : response.status >= 300
          ? chalk.cyan
          : chalk.green;
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

/** Refuses a JSON body that does not fit the operation's schema, with the server's own wording, before sending it. */
async function checkBody(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<void> {
  if (body === undefined || !/json/i.test(headers['content-type'] ?? '')) return;
  const [{ resolveOperation }, { schemaProblem }] = await Promise.all([
    import('../services/operations.js'),
    import('../schema/json-schema.js'),
  ]);
  const operation = resolveOperation(method, path);
  const schema = operation?.route.bodySchema;
  const problem = schema ? schemaProblem(schema, JSON.parse(body)) : null;
  if (problem)
    throw new CliError(
      `Invalid request body for ${method} ${operation!.fullPath}: ${problem}. (--no-validate sends it anyway.)`,
      USAGE,
    );
}

async function printOperations(json: boolean | undefined): Promise<void> {
  const [{ listOperations }, { acceptedScopes }] = await Promise.all([
    import('../services/operations.js'),
    import('../auth/scopes.js'),
  ]);
  const operations = listOperations();
  // The scope as a token must carry it (`platform:`, not the spec's `<platform>:`).
  const scopeOf = (scope: string | null) => (scope ? acceptedScopes(scope).join(' | ') : '(no scope)');
  process.stdout.on('error', (err: NodeJS.ErrnoException) => process.exit(err.code === 'EPIPE' ? 0 : 1));
  if (json) {
    const table = operations.map(({ service, route, fullPath: path }) => ({
      service: service.prefix,
      method: route.method,
      path,
      scopes: route.scope ? acceptedScopes(route.scope) : [],
      summary: route.summary,
      ...(route.query ? { query: route.query.map((q) => q.name) } : {}),
      ...(route.bodySchema ? { bodySchema: route.bodySchema } : {}),
    }));
    process.stdout.write(`${JSON.stringify(table, null, 2)}\n`);
    return;
  }
  const pathWidth = Math.max(...operations.map((o) => o.fullPath.length));
  const scopeWidth = Math.max(...operations.map((o) => scopeOf(o.route.scope).length));
  const lines = operations.map(
    ({ route, fullPath: path }) =>
      `${route.method.padEnd(7)}${path.padEnd(pathWidth + 2)}` +
      `${scopeOf(route.scope).padEnd(scopeWidth + 2)}${chalk.dim(route.summary)}\n`,
  );
  // `call --list | head` closes the pipe early: that is not an error (handled above).
  process.stdout.write(lines.join(''));
  process.stderr.write(chalk.dim(`${operations.length} operations. Bare paths (without /<prefix>/api/v1) work too.\n`));
}

/** What to add when the emulator wants a token and the CLI has none to send. */
const TOKEN_HINT =
  'The emulator runs with --auth on. Add --token <jwt> (or PLATFORM_EMU_TOKEN), or --data-dir of the emulator (its ' +
  'lock holds the admin token that gets one; or PLATFORM_EMU_ADMIN_TOKEN).';

/** A 401 to a service path that was sent without a token. */
const needsToken = (response: ClientResponse, target: string, client: EmulatorClient) =>
  response.status === 401 && !client.accessToken && !/^\/_emu\//.test(target);

/** A test token of the tenant, from the control plane (which takes the admin token found in the lock or env). */
async function testToken(client: EmulatorClient, tenant: string | undefined): Promise<string> {
  const { EmulatorHttpError } = await import('../client/http-client.js');
  try {
    return await client.issueToken({ tenant });
  } catch (err) {
    if (err instanceof EmulatorHttpError && err.status === 401) throw new CliError(withHint(err.message, TOKEN_HINT));
    throw err;
  }
}

function deviceLine(device: DeviceAnswer): string {
  const text = `the device answered ${device.statusCode}${device.reasonPhrase ? ` ${device.reasonPhrase}` : ''}`;
  return device.statusCode >= 400 ? chalk.red(text) : chalk.dim(text);
}

/** `--json`: the answer as one object, `{ status, body, device? }` (body: parsed JSON, else the text, else null). */
function printJson(response: ClientResponse, device: DeviceAnswer | undefined): void {
  const body = response.raw.length === 0 ? null : (response.json ?? response.raw.toString('utf8'));
  process.stdout.write(`${JSON.stringify({ status: response.status, body, ...(device ? { device } : {}) })}\n`);
}

async function run(method: string | undefined, path: string | undefined, options: CallOptions): Promise<void> {
  if (options.list) return printOperations(options.json);
  if (!method || !path)
    throw new CliError(
      'call needs a method and a path, for example: platform-emu call GET /endpoints (or --list).',
      USAGE,
    );
  const verb = method.toUpperCase();
  if (!METHODS.includes(verb)) throw new CliError(`Unknown method ${method}; use one of ${METHODS.join(', ')}.`, USAGE);

  if (options.data !== undefined) {
    process.stderr.write(
      'platform-emu: call --data is deprecated: use -d/--body for the request body (--data-dir names the data ' +
        'directory).\n',
    );
    if (options.body !== undefined)
      throw new CliError('Give the request body once: -d/--body (or the deprecated --data), not both.', USAGE);
  }
  const headers = { ...options.header };
  const body = await requestBody(options.body ?? options.data, headers);
  const { EmulatorClient, EmulatorHttpError, EmulatorUnreachableError } = await import('../client/http-client.js');
  const client = new EmulatorClient(
    runningUrl({ url: options.url, data: options.dataDir }) ?? DEFAULT_EMULATOR_URL,
    options.token,
  );
  client.adminToken = adminTokenFor(client.baseUrl, { data: options.dataDir });
  try {
    if (options.auth) client.accessToken = await testToken(client, options.tenant);
    const { target, bare } = targetPath(path);
    if (options.validate) await checkBody(verb, target, body, headers);
    let response = await client.request(verb, target, { body, headers });
    // With --auth on and no token given, a token is found the way the control-plane commands find theirs.
    if (needsToken(response, target, client) && client.adminToken) {
      client.accessToken = await testToken(client, options.tenant);
      response = await client.request(verb, target, { body, headers });
    }
    if (response.status === 404 && bare) await checkBarePath(verb, path);
    process.stderr.write(`${statusLine(response)}\n`);
    if (options.include) {
      for (const [name, value] of Object.entries(response.headers))
        process.stderr.write(`${chalk.dim(`${name}:`)} ${value}\n`);
    }
    if (needsToken(response, target, client)) process.stderr.write(`${TOKEN_HINT}\n`);
    const device = await deviceAnswerOf(client, verb, target, response);
    if (device) process.stderr.write(`${deviceLine(device)}\n`);
    if (options.json) printJson(response, device);
    else printBody(response, options.raw);
    process.exitCode = deviceExitCode(device) ?? exitCodeOf(response.status, options.expect);
  } catch (err) {
    if (err instanceof EmulatorUnreachableError || err instanceof EmulatorHttpError) throw new CliError(err.message);
    throw err;
  }
}

export function callCommand(): Command {
  return new Command('call')
    .description(
      'Call any operation of the running emulator and print the answer (JSON pretty-printed, status line on stderr).',
    )
    .argument('[method]', `HTTP method: ${METHODS.join(', ')}`)
    .argument(
      '[path]',
      'operation path, with or without the service prefix: /endpoints or /epr/api/v1/endpoints; query strings as usual',
    )
    .addOption(
      new Option(
        '-d, --body <json|@file>',
        'request body: JSON text, @file, or @- for stdin (checked as JSON unless a Content-Type header says otherwise)',
      ),
    )
    .addOption(new Option('--data <json|@file>', 'deprecated: -d/--body').hideHelp())
    .addOption(
      new Option(
        '--expect <status>',
        'the answers that count as success (repeatable or comma-separated): any other exits 4, 5 or 6',
      ).argParser(parseStatuses),
    )
    .addOption(
      new Option('-H, --header <name:value>', 'a request header (repeatable)')
        .argParser(parseHeader)
        .default({}, 'none'),
    )
    .addOption(new Option('--token <jwt>', 'bearer token to send').env('PLATFORM_EMU_TOKEN'))
    .addOption(
      new Option('--auth', 'fetch a test token from the emulator (POST /_emu/token) and send it instead of --token'),
    )
    .addOption(new Option('--tenant <id>', 'tenant of the token --auth fetches (default: the default tenant)'))
    .option('--raw', 'print the body exactly as received')
    .option('-i, --include', 'print the response headers on stderr')
    .option('--no-validate', "send the body even when it does not fit the operation's schema")
    .option('--list', 'print every operation with its scope and summary, then exit')
    .option(
      '--json',
      "print the answer as one JSON object { status, body, device } (device: a command's status and reason); " +
        'with --list, the table',
    )
    .addOption(urlOption())
    .addOption(
      new Option('--data-dir <dir>', 'data directory of the emulator to call, when --url is not given')
        .env('PLATFORM_EMU_DATA')
        .default(START_DEFAULTS.dataDir),
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 for 1xx-3xx, 4 for a 4xx answer, 5 for a 5xx answer, 1 when the emulator cannot be reached, 2 for ` +
        `usage errors.
With --expect: 0 for the statuses it names, 4 or 5 for other 4xx/5xx, 6 for any other (a 202 when 200 was ` +
        `expected:
the device did not answer the command in time).
A command the device answered with a status of 400 or more (200 with an empty body from the REST side) prints that
status and reason on stderr and exits 4 (400-499) or 5 (500 or more).
With --auth on, a token is fetched when none is given and the admin token is at hand (the lock of --data-dir,
PLATFORM_EMU_ADMIN_TOKEN); otherwise the 401 says which flag to add.
The emulator is found by --url, PLATFORM_EMU_URL, the lock of --data-dir, or else ${DEFAULT_EMULATOR_URL}.

Examples:
  $ platform-emu call GET /endpoints?include=metadata
  $ platform-emu call POST /endpoints --body '{"appVersion":{"name":"smart-meter-v1"}}'
  $ platform-emu call POST '/endpoints/meter-001/commands/reboot?waitTimeout=10' -d '{"delay":1}' --expect 200
  $ platform-emu call GET /endpoints/meter-001 -H 'If-None-Match: "3"' -i
  $ platform-emu call POST /applications -d '{"name":"my-app"}'
  $ platform-emu call --list
  $ platform-emu call --list --json`,
    )
    .action(run);
}
