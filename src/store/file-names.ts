/** The files of a data directory the store keeps: its snapshot and its mutation log (docs/state.md). */
export const SNAPSHOT_FILE = 'state.json';
export const LOG_FILE = 'mutations.jsonl';
