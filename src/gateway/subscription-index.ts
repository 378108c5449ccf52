import { KP1_ROOT, topicMatches } from './topics.js';

/** What aedes's emitter (mqemitter) asks of its topic matcher: the three methods of qlobber it calls. */
export interface TopicMatcher {
  add(filter: string, value: unknown): unknown;
  remove(filter: string, value?: unknown): unknown;
  match(topic: string): unknown[];
}

const KP1_TOPICS = `${KP1_ROOT}/`;
/** What the other filters match of a KP1 topic while none could: nothing (frozen: nobody changes a match's array). */
const NONE = Object.freeze([]) as unknown as unknown[];

/** Filters are indexed by their first four levels: `kp1/<version>/<extension>/<token>` for a device's own. */
const KEY_LEVELS = 4;

interface Indexed {
  filter: string;
  /** Where the filter's levels after the key begin, or -1 when it has none; `+` there is any one level. */
  restAt: number;
  value: unknown;
}

/**
 * The end of a topic's first four levels (the index of the `/` after them, or the topic's length when it has exactly
 * four), or -1 when it has fewer.
 */
function keyEnd(topic: string): number {
  let at = -1;
  for (let level = 1; level < KEY_LEVELS; level++) {
    at = topic.indexOf('/', at + 1);
    if (at < 0) return -1;
  }
  const end = topic.indexOf('/', at + 1);
  return end < 0 ? topic.length : end;
}

/** Where a filter's key ends when the index keeps it (no wildcard in its first four levels, no `#` after), or -1. */
function indexedEnd(filter: string): number {
  const end = keyEnd(filter);
  return end < 0 || filter.includes('#') || filter.slice(0, end).includes('+') ? -1 : end;
}

/** Where the levels of a topic or filter after its key begin (the key ending at `end`), or -1 when it has none. */
const restAt = (topic: string, end: number): number => (end === topic.length ? -1 : end + 1);

/** Whether an indexed filter's levels after its key match a topic's from `at` (-1: the topic has none after it). */
function restMatches({ filter, restAt: f }: Indexed, topic: string, at: number): boolean {
  return f < 0 || at < 0 ? f < 0 && at < 0 : topicMatches(filter, topic, f, at);
}

/** Whether a filter could match a KP1 topic (`kp1/...`): its first level is `kp1`, `+` or `#`. */
function mayMatchKp1(filter: string): boolean {
  const end = filter.indexOf('/');
  const first = end < 0 ? filter : filter.slice(0, end);
  return first === KP1_ROOT || first === '+' || first === '#';
}

/** Where the last entry of `filter` with `value` is, or -1. */
function lastIndexOf(entries: readonly Indexed[], filter: string, value: unknown): number {
  for (let i = entries.length - 1; i >= 0; i--)
    if (entries[i].filter === filter && entries[i].value === value) return i;
  return -1;
}

/**
 * The broker's subscriptions, with the filters whose first four levels hold no wildcard and whose later ones no `#`
 * (every filter a device subscribes to: `kp1/<version>/<extension>/<token>/<resource>/+/+`) kept in one map keyed by
 * those four levels, and every other filter in aedes's own matcher (qlobber), which matches them as before. qlobber
 * keeps a `Map` per level of a filter, and the levels after a device's token are its own: at 10,000 simulated devices
 * that was 53 MB of the emulator's 190 MB alive once they had connected. Matching is MQTT's as qlobber does it for
 * aedes: `+` is one whole level, an empty one included; a level holding `+` among other characters is plain text.
 */
export class SubscriptionIndex implements TopicMatcher {
  private readonly byKey = new Map<string, Indexed[]>();
  /**
   * The other filters that could match a KP1 topic, each with its values as qlobber keeps them (a list: a remove with
   * a value takes its last one, without a value all of them). While there is none, qlobber is not asked of KP1
   * topics (the gateway's every reply and push), which it would split into levels to find nothing.
   */
  private readonly othersForKp1 = new Map<string, unknown[]>();

  constructor(private readonly others: TopicMatcher) {}

  add(filter: string, value: unknown): this {
    const end = indexedEnd(filter);
    if (end < 0) {
      if (mayMatchKp1(filter)) {
        const values = this.othersForKp1.get(filter);
        if (values) values.push(value);
        else this.othersForKp1.set(filter, [value]);
      }
      this.others.add(filter, value);
      return this;
    }
    const key = filter.slice(0, end);
    const entry = { filter, restAt: restAt(filter, end), value };
    const entries = this.byKey.get(key);
    if (entries) entries.push(entry);
    else this.byKey.set(key, [entry]);
    return this;
  }

  /** Removes the last `value` added for `filter`, or every value of it when `value` is not given (as qlobber does). */
  remove(filter: string, value?: unknown): this {
    const end = indexedEnd(filter);
    if (end < 0) {
      this.others.remove(filter, value);
      this.forgetForKp1(filter, value);
      return this;
    }
    const key = filter.slice(0, end);
    const entries = this.byKey.get(key);
    if (!entries) return this;
    if (value === undefined) {
      const kept = entries.filter((entry) => entry.filter !== filter);
      if (kept.length > 0) this.byKey.set(key, kept);
      else this.byKey.delete(key);
      return this;
    }
    const at = lastIndexOf(entries, filter, value);
    if (at >= 0) entries.splice(at, 1);
    if (entries.length === 0) this.byKey.delete(key);
    return this;
  }

  /** Follows a remove from qlobber in `othersForKp1`. */
  private forgetForKp1(filter: string, value: unknown): void {
    const values = this.othersForKp1.get(filter);
    if (!values) return;
    if (value !== undefined) {
      const at = values.lastIndexOf(value);
      if (at >= 0) values.splice(at, 1);
    }
    if (value === undefined || values.length === 0) this.othersForKp1.delete(filter);
  }

  /** The values of every filter that matches `topic`. qlobber may answer with an array of its own: never changed. */
  match(topic: string): unknown[] {
    const others = this.othersForKp1.size > 0 || !topic.startsWith(KP1_TOPICS) ? this.others.match(topic) : NONE;
    const end = keyEnd(topic);
    const entries = end < 0 ? undefined : this.byKey.get(topic.slice(0, end));
    if (!entries) return others;
    const at = restAt(topic, end);
    let found: unknown[] | undefined;
    for (const entry of entries) if (restMatches(entry, topic, at)) (found ??= [...others]).push(entry.value);
    return found ?? others;
  }
}

/**
 * Puts the index in front of the topic matcher of an aedes broker's emitter, which neither aedes's types nor
 * mqemitter's show: mqemitter 7.1 keeps it in a field of its own (`_matcher`). Answers whether it did: a user's
 * install may bring a later mqemitter (aedes asks for ^7.1), which may keep it elsewhere; the broker then matches
 * with its own matcher alone, as correct and slower at thousands of devices, rather than not starting.
 */
export function indexSubscriptions(broker: object): boolean {
  const emitter = (broker as { mq?: { _matcher?: TopicMatcher } }).mq;
  if (!emitter || typeof emitter._matcher?.match !== 'function') return false;
  emitter._matcher = new SubscriptionIndex(emitter._matcher);
  return true;
}
