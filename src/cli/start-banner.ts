import chalk from './colours.js';
import { resolve } from 'node:path';
import type { RunningEmulator } from '../index.js';
import { START_DEFAULTS } from '../client/defaults.js';
import type { StartOptions } from './start-options.js';
import { cliName } from './invocation.js';
import { generatedSecretLines } from './lifecycle.js';

/** What `platform-emu token` needs to find this emulator: nothing for the default data directory. */
function tokenTarget(emulator: RunningEmulator): string {
  if (!emulator.dataDir) return ` --url ${emulator.url}`;
  return emulator.dataDir === resolve(START_DEFAULTS.dataDir) ? '' : ` --data-dir ${emulator.dataDir}`;
}

/**
 * With auth on, how to reach the control plane: the CLI finds the token in the lock; in memory it is only shown here.
 */
function adminHint(emulator: RunningEmulator, options: StartOptions): string {
  if (options.adminToken) return chalk.dim('the control plane (/_emu) takes the --admin-token you gave');
  if (emulator.dataDir)
    return chalk.dim(
      `the control plane's admin token is in ${emulator.dataDir}/emulator.lock (the CLI reads it from there)`,
    );
  return `PLATFORM_EMU_ADMIN_TOKEN=${emulator.adminToken}  ${chalk.dim('(the control plane /_emu needs it)')}`;
}

interface BannerModules {
  internalContext: typeof import('../emulator.js').internalContext;
  listTenants: typeof import('../services/tenant-manager/tenants.js').listTenants;
}

function banner(emulator: RunningEmulator, options: StartOptions, modules: BannerModules): string {
  const { url } = emulator;
  const ctx = modules.internalContext(emulator);
  const { listTenants } = modules;
  const width = Math.max(...ctx.services.map((s) => s.title.length));
  const lines = [
    `${chalk.bold.green('platform-emu')} ready at ${chalk.bold(url)}  ${chalk.dim(`(auth ${options.auth})`)}`,
    '',
    chalk.bold('Services'),
    ...ctx.services.map((s) => `  ${s.title.padEnd(width)}  ${chalk.cyan(`${url}/${s.prefix}/api/v1`)}`),
    '',
    `${chalk.bold('State')}     ${emulator.dataDir ?? 'in memory (nothing is written)'}`,
    `${chalk.bold('Tenants')}   ${
      listTenants(ctx)
        .map((t) => (t.id === ctx.defaultTenantId() ? `${t.id} (default)` : t.id))
        .join(', ') || 'none'
    }`,
    `${chalk.bold('Token')}     ${cliName()} token${tokenTarget(emulator)}   ` +
      `${chalk.dim('(or the OIDC token endpoint of each realm)')}`,
    `${chalk.bold('Health')}    ${url}/_emu/health`,
    `${chalk.bold('Dashboard')} ${chalk.cyan(`${url}/_emu/ui/`)}`,
    ...(options.auth === 'on' ? [`${chalk.bold('Admin')}     ${adminHint(emulator, options)}`] : []),
    `${chalk.bold('MQTT')}      ${chalk.cyan(emulator.mqttUrl)}   ` +
      chalk.dim('(KP1 devices; also POST /kp1/... on the REST port)'),
    `${chalk.bold('MQTTS')}     ${chalk.cyan(emulator.mqttsUrl)}   ` +
      chalk.dim(
        `(TLS, client certificates ${options.tlsClientAuth === 'required' ? 'required' : 'optional'}; ` +
          `root certificate: ${cliName()} tls ca, or ${url}/_emu/tls/ca.pem)`,
      ),
    ...(emulator.httpsUrl
      ? [`${chalk.bold('HTTPS')}     ${chalk.cyan(emulator.httpsUrl)}   ${chalk.dim('(the REST port over TLS)')}`]
      : []),
    '',
    chalk.dim(`Try: curl ${url}/epr/api/v1/endpoints`),
    ...(emulator.generatedSecrets.length > 0
      ? [
          '',
          `${chalk.bold.yellow('Secrets')}   made for this import (the export had them <redacted>; shown only now):`,
          ...generatedSecretLines(emulator.generatedSecrets).map((line) => `  ${line}`),
        ]
      : []),
  ];
  return lines.join('\n');
}

/** What a person reads once the emulator is ready: where everything is. */
export async function printBanner(emulator: RunningEmulator, options: StartOptions): Promise<void> {
  const [{ internalContext }, { listTenants }] = await Promise.all([
    import('../emulator.js'),
    import('../services/tenant-manager/tenants.js'),
  ]);
  process.stdout.write(`${banner(emulator, options, { internalContext, listTenants })}\n`);
}
