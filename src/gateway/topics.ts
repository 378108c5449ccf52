/**
 * The KP1 path grammar, shared by MQTT topics and the HTTP binding:
 * `kp1/{appVersionName}/{extension}/{endpointToken}/{resource...}[/{requestId}]`.
 */

export const KP1_ROOT = 'kp1';

export interface Kp1Path {
  appVersionName: string;
  extension: string;
  token: string;
  /** The resource levels, without the request id; empty for `tsx`. */
  resource: string[];
  /** The last level when it is decimal digits, 0 included (spec 4: a request id, not part of the resource). */
  requestId?: number;
}

/** Thrown for a path that does not follow the grammar; the reason is meant for a firmware developer. */
export class Kp1PathError extends Error {
  constructor(
    message: string,
    readonly requestId?: number,
  ) {
    super(message);
  }
}

const REQUEST_ID = /^\d+$/;

export function asRequestId(level: string | undefined): number | undefined {
  if (level === undefined || !REQUEST_ID.test(level)) return undefined;
  const id = Number(level);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Splits a KP1 path into its parts; throws `Kp1PathError` (with the request id, when there is one) if malformed. */
export function parseKp1Path(path: string): Kp1Path {
  const levels = path.split('/');
  // The fourth level is always the token, so only a fifth or later level can be a request id.
  const requestId = levels.length > 4 ? asRequestId(levels[levels.length - 1]) : undefined;
  if (requestId !== undefined) levels.pop();
  if (levels[0] !== KP1_ROOT)
    throw new Kp1PathError(`A KP1 path starts with "${KP1_ROOT}/"; got "${path}".`, requestId);
  if (levels.length < 4) {
    throw new Kp1PathError(
      `"${path}" is too short: a KP1 path is ` +
        `kp1/<appVersionName>/<extension>/<endpointToken>/<resource>[/<requestId>].`,
      requestId,
    );
  }
  const empty = levels.findIndex((level) => level === '');
  if (empty !== -1) {
    throw new Kp1PathError(
      `"${path}" has an empty level (at position ${empty + 1}); MQTT topics are sensitive to leading, ` +
        `trailing and doubled slashes.`,
      requestId,
    );
  }
  const [, appVersionName, extension, token, ...resource] = levels;
  return { appVersionName, extension, token, resource, requestId };
}

/**
 * MQTT topic filter matching (`+` one level, `#` the rest), for deciding whether a client subscribed to a topic.
 * As aedes does: it has no shared subscriptions, so `$share/...` is a filter like any other.
 */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
