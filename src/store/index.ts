export { Store, type StoreOptions } from './store.js';
export { JsonDepthError, StoreError, StoreValueError, StoreWriteError, UndeclaredCollectionError } from './errors.js';
export { collection, Collection, seriesCollection, SeriesCollection, type HasStore } from './collection.js';
export { checkDocument } from './checks.js';
export { checkJsonDepth, MAX_JSON_DEPTH } from './json-limits.js';
export { isPlainObject, userKeyed } from './json-values.js';
export { readLock, type LockInfo } from './lock.js';
export { SCHEMA_VERSION, type StateDocument, type StoredRecord, type Mutation, type SeriesAppend } from './document.js';
export { Series, type SeriesItem, type SeriesDocument, type SeriesByCollection } from './series.js';
