export { startEmulator, type RunningEmulator } from './emulator.js';
export type { EmulatorOptions, AuthMode } from './config.js';
export type { ServiceDescriptor, Route } from './server/contract.js';
export { services } from './services/index.js';
