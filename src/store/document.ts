import type { SeriesByCollection, SeriesItem } from './series.js';

/** The version of the state document's layout; a data directory written by a newer one is refused. */
export const SCHEMA_VERSION = 1;

export type StoredRecord = Record<string, unknown>;

/** The snapshot `state.json` and the shape of `fixtures export`. */
export interface StateDocument {
  schemaVersion: number;
  /** The sequence number of the last mutation the snapshot contains; log lines up to it are skipped on replay. */
  seq: number;
  counters: Record<string, number>;
  collections: Record<string, Record<string, StoredRecord>>;
  /** Append-only series (time series points), by collection and id; absent when there is none. */
  series?: SeriesByCollection;
}

export type Mutation =
  | { op: 'put'; c: string; id: string; v: StoredRecord }
  | { op: 'del'; c: string; id: string }
  /** Adds items to a series kept sorted by time; an item with the time of an existing one replaces it. */
  | { op: 'append'; c: string; id: string; v: SeriesItem[] }
  /**
   * Appends to several series of one collection, each as `append` would: a batch of a fleet's samples, whose log line
   * then names the collection and the operation once rather than once per series.
   */
  | { op: 'appends'; c: string; v: SeriesAppend[] };

/** The id of a series and the items appended to it (an `appends` mutation). */
export type SeriesAppend = [id: string, items: SeriesItem[]];

/** Whether a mutation appends to series (`append`, `appends`) rather than changing a record. */
export const changesSeries = (m: Mutation): m is Extract<Mutation, { op: 'append' | 'appends' }> =>
  m.op === 'append' || m.op === 'appends';

/** One line of the mutation log: the mutations of one commit, applied all or none. */
export interface LogLine {
  s: number;
  m: Mutation[];
  /** Counters advanced by `nextId` since the previous line, so that an id is never handed out twice after a crash. */
  c?: Record<string, number>;
}

export function emptyDocument(): StateDocument {
  return { schemaVersion: SCHEMA_VERSION, seq: 0, counters: {}, collections: {} };
}
