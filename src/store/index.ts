export { Store, type StoreOptions } from './store.js';
export { StoreError } from './errors.js';
export { readLock, type LockInfo } from './lock.js';
export { SCHEMA_VERSION, type StateDocument, type StoredRecord, type Mutation } from './document.js';
export { Series, type SeriesItem, type SeriesDocument, type SeriesByCollection } from './series.js';
