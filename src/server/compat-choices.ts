import type { ServiceDescriptor } from '../contract.js';

/** `startEmulator` options that cannot work (a `compat` revision no service offers): nothing was started. */
export class EmulatorOptionsError extends Error {
  override name = 'EmulatorOptionsError';
}

/**
 * What is wrong with a `--compat` choice (`{ cex: '9' }`), naming the revisions each service offers; undefined when
 * nothing is.
 */
export function compatProblem(
  compat: Record<string, string>,
  services: readonly ServiceDescriptor[],
): string | undefined {
  const offered = services.filter((s) => s.compat);
  const choices = offered.map((s) => `${s.prefix}=${s.compat!.revisions.join('|')}`).join(', ');
  for (const [prefix, revision] of Object.entries(compat)) {
    const service = offered.find((s) => s.prefix === prefix);
    if (!service)
      return `--compat ${prefix}=${revision}: ${prefix} has no revisions to choose from; the choices are ${choices}.`;
    if (!service.compat!.revisions.includes(revision)) {
      return (
        `--compat ${prefix}=${revision}: the revisions of ${prefix} are ${service.compat!.revisions.join(', ')} ` +
        `(default ${service.compat!.default}).`
      );
    }
  }
  return undefined;
}
