import { type Command, InvalidArgumentError, Option } from 'commander';
import { START_DEFAULTS } from '../client/defaults.js';
import { collect, dataOption, parsePort, parsePositiveInt } from './shared.js';

function parseCompat(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([a-z0-9-]+)=([A-Za-z0-9._-]+)$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected <service>=<revision>, for example cex=1.');
  return { ...previous, [match[1]]: match[2] };
}

/** The flags of `start`, each with its variable and default (`exec` takes the same ones). */
export function withStartFlags(command: Command): Command {
  return command
    .addOption(
      new Option('-p, --port <port>', 'REST port (0 picks a free one)')
        .env('PLATFORM_EMU_PORT')
        .default(START_DEFAULTS.port)
        .argParser(parsePort),
    )
    .addOption(
      new Option('--host <host>', 'address to listen on').env('PLATFORM_EMU_HOST').default(START_DEFAULTS.host),
    )
    .addOption(dataOption())
    .addOption(new Option('--in-memory', 'keep all state in memory and write nothing').env('PLATFORM_EMU_IN_MEMORY'))
    .addOption(
      new Option(
        '--fixtures <file>',
        'fixture file (or a `fixtures export`) that seeds a new, empty state; "none" for an empty platform',
      )
        .env('PLATFORM_EMU_FIXTURES')
        .default(START_DEFAULTS.fixtures, 'the bundled fixtures/default.json'),
    )
    .addOption(
      new Option('--auth <mode>', 'require bearer tokens')
        .choices(['off', 'on'])
        .env('PLATFORM_EMU_AUTH')
        .default(START_DEFAULTS.auth),
    )
    .addOption(
      new Option(
        '--compat <service=revision>',
        'answer like another revision of a service where two differ (repeatable): cex=1, app-manager=1',
      )
        .env('PLATFORM_EMU_COMPAT')
        .argParser(parseCompat)
        .default({}),
    )
    .addOption(
      new Option('--body-limit <bytes>', 'largest request body accepted (413 beyond)')
        .env('PLATFORM_EMU_BODY_LIMIT')
        .default(START_DEFAULTS.bodyLimit)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--async-timeout <seconds>',
        "the services' asynchronous request timeout: the longest wait a command may ask for",
      )
        .env('PLATFORM_EMU_ASYNC_TIMEOUT')
        .default(START_DEFAULTS.asyncRequestTimeout)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--mqtt-port <port>', 'MQTT port of the device gateway (0 picks a free one)')
        .env('PLATFORM_EMU_MQTT_PORT')
        .default(START_DEFAULTS.mqttPort)
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--mqtt-auth <mode>',
        'MQTT CONNECT: "anonymous" admits clients without credentials (those with a username are checked), ' +
          '"basic" requires basic credentials',
      )
        .choices(['anonymous', 'basic'])
        .env('PLATFORM_EMU_MQTT_AUTH')
        .default(START_DEFAULTS.mqttAuth),
    )
    .addOption(
      new Option(
        '--compact-bytes <bytes>',
        'size of the mutation log past which state.json is rewritten and the lines it holds dropped from the log ' +
          '(default: 16 MiB, or the size of state.json if larger)',
      )
        .env('PLATFORM_EMU_COMPACT_BYTES')
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--upload-token-ttl <seconds>',
        'lifetime of the upload token a device gets from bcx (X-Auth-Token of binary-data uploads)',
      )
        .env('PLATFORM_EMU_UPLOAD_TOKEN_TTL')
        .default(START_DEFAULTS.uploadTokenTtl)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--upload-limit <bytes>', 'largest binary-data upload (413 beyond)')
        .env('PLATFORM_EMU_UPLOAD_LIMIT')
        .default(START_DEFAULTS.uploadLimit)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--import <file>',
        'replace the state at start with this file (from `fixtures export`, or a fixture file), whatever the ' +
          'data directory holds',
      ).env('PLATFORM_EMU_IMPORT'),
    )
    .addOption(
      new Option(
        '--export-on-exit <file>',
        'at a clean stop (SIGINT, SIGTERM, `platform-emu stop`), write the whole state to this file',
      ).env('PLATFORM_EMU_EXPORT_ON_EXIT'),
    )
    .addOption(
      new Option(
        '--generate-app-names',
        'application manager: POST /applications takes no name and generates one (name auto-generation on)',
      ).env('PLATFORM_EMU_GENERATE_APP_NAMES'),
    )
    .addOption(
      new Option('--journal-size <entries>', 'requests and KP1 messages the request journal keeps (GET /_emu/requests)')
        .env('PLATFORM_EMU_JOURNAL_SIZE')
        .default(START_DEFAULTS.journalSize)
        .argParser(parsePositiveInt),
    )
    .addOption(
      new Option(
        '--allow-host <name>',
        'also answer requests whose Host is this name (repeatable; loopback names always work)',
      )
        .env('PLATFORM_EMU_ALLOW_HOST')
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        '--allow-origin <origin>',
        'let web pages of this origin call and change the emulator (CORS; repeatable; the variable takes a ' +
          'comma-separated list)',
      )
        .env('PLATFORM_EMU_ALLOW_ORIGIN')
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        '--admin-token <secret>',
        'with --auth on, the admin token of the control plane (default: one the emulator signs)',
      ).env('PLATFORM_EMU_ADMIN_TOKEN'),
    )
    .addOption(
      new Option(
        '--mqtts-port <port>',
        'MQTT over TLS port (0 picks a free one; default 8883, or a free one when --port or --mqtt-port is named)',
      )
        .env('PLATFORM_EMU_MQTTS_PORT')
        .default(START_DEFAULTS.mqttsPort)
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--https-port <port>',
        'also serve the REST port (and KP1 over HTTP) over HTTPS on this port (0 picks a free one)',
      )
        .env('PLATFORM_EMU_HTTPS_PORT')
        .argParser(parsePort),
    )
    .addOption(
      new Option(
        '--tls-cert <file>',
        'server certificate (PEM) of MQTTS and HTTPS instead of one the local certificate authority signs',
      ).env('PLATFORM_EMU_TLS_CERT'),
    )
    .addOption(new Option('--tls-key <file>', 'private key (PEM) of --tls-cert').env('PLATFORM_EMU_TLS_KEY'))
    .addOption(
      new Option(
        '--tls-client-auth <mode>',
        'MQTTS: "off" is one-way TLS, "required" refuses clients without a certificate the credentials ' +
          'manager holds (a tenant may override)',
      )
        .choices(['off', 'required'])
        .env('PLATFORM_EMU_TLS_CLIENT_AUTH')
        .default(START_DEFAULTS.tlsClientAuth),
    )
    .addOption(
      new Option('--log <what>', 'print one line per REST request and KP1 message as it happens')
        .choices(['requests'])
        .env('PLATFORM_EMU_LOG'),
    )
    .addOption(new Option('-q, --quiet', 'print only the URL').env('PLATFORM_EMU_QUIET'))
    .addOption(
      new Option(
        '--json',
        'print one JSON line when ready: url, mqttUrl, mqttsUrl, port, mqttPort, mqttsPort, pid, dataDir (and ' +
          'adminToken when auth is on)',
      ).env('PLATFORM_EMU_JSON'),
    )
    .addOption(
      new Option(
        '--detach',
        'run in the background: return once ready, log to <data dir>/emulator.log; `platform-emu stop` ends it',
      ),
    )
    .addOption(new Option('--detached-child').hideHelp());
}
