export { startEmulator } from './emulator.js';
export type {
  RunningEmulator,
  TokenOptions,
  EmulatorClock,
  EmulatorFaults,
  ClockMode,
  Fault,
  FaultInput,
  JournalEntry,
  JournalFilter,
  SnapshotInfo,
} from './handle.js';
export type { EmulatorOptions, AuthMode } from './config.js';
export type { ServiceDescriptor, Route } from './server/contract.js';
export { services } from './services/index.js';
export { parseDuration } from './clock.js';
export { EMULATOR_ADMIN_SCOPE } from './auth/tokens.js';
