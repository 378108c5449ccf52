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
  const empty = levels.indexOf('');
  if (empty !== -1) {
    throw new Kp1PathError(
      `"${path}" has an empty level (at position ${empty + 1}); MQTT topics are sensitive to leading, ` +
        `trailing and doubled slashes.`,
      requestId,
    );
  }
  return { appVersionName: levels[1], extension: levels[2], token: levels[3], resource: levels.slice(4), requestId };
}

/**
 * MQTT topic filter matching (`+` one level, an empty one included; `#` the rest), for deciding whether a client
 * subscribed to a topic; from `f` and `t` on, the levels of the filter and the topic after those already compared.
 * As aedes does: it has no shared subscriptions, so `$share/...` is a filter like any other.
 */
export function topicMatches(filter: string, topic: string, f = 0, t = 0): boolean {
  // Asked for a client's filters on every message forwarded to it: walked level by level, nothing allocated.
  let topicDone = false;
  for (;;) {
    const filterEnd = levelEnd(filter, f);
    const length = filterEnd - f;
    if (length === 1 && filter.charCodeAt(f) === HASH) return true;
    if (topicDone) return false;
    const topicEnd = levelEnd(topic, t);
    if (!(length === 1 && filter.charCodeAt(f) === PLUS)) {
      if (length !== topicEnd - t) return false;
      for (let k = 0; k < length; k++) if (filter.charCodeAt(f + k) !== topic.charCodeAt(t + k)) return false;
    }
    topicDone = topicEnd === topic.length;
    if (filterEnd === filter.length) return topicDone;
    f = filterEnd + 1;
    if (!topicDone) t = topicEnd + 1;
  }
}

const HASH = '#'.charCodeAt(0);
const PLUS = '+'.charCodeAt(0);

/** Where the level starting at `from` ends: the next `/`, or the end of the text. */
function levelEnd(text: string, from: number): number {
  const slash = text.indexOf('/', from);
  return slash === -1 ? text.length : slash;
}
