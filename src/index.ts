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
export type { EmulatorOptions, AuthMode, MqttAuthMode, TlsClientAuthMode } from './config.js';
export type { GeneratedSecret } from './server/control/secrets.js';
export type { StateDocument } from './store/index.js';
export type { ServiceDescriptor, Route } from './contract.js';
export { services } from './services/index.js';
export * from './simulator/index.js';
export { Kp1Device, type Kp1Command, type Kp1ConnectOptions, type Kp1Reply } from './client/kp1-device.js';
export { adminTokenOf, openDataDir, rootCertificateOf, type StoppedEmulator } from './data-dir.js';
export { readEmulatorLock, type EmulatorLock } from './client/emulator-lock.js';
export { parseDuration } from './clock.js';
export { EMULATOR_ADMIN_SCOPE } from './auth/tokens.js';
// Errors a caller may catch: an HTTP-shaped refusal (`faults.add`), a fixture or import that does not validate, a
// data directory that cannot be opened or written, options that cannot work.
export { HttpError } from './server/errors.js';
export { FixtureError } from './seed/errors.js';
export { StoreError, StoreWriteError } from './store/errors.js';
export { EmulatorOptionsError } from './server/compat-choices.js';
