export { simulateDevice, type BehaviourOptions, type SimulateDeviceOptions } from './simulate-device.js';
export type { SimulatedDevice } from './device.js';
export type { DeviceEvent, DeviceEventName, DeviceEventOf, ReceivedCommand } from './events.js';
export type { Answer, Rule, Rules } from './rules.js';
export type { SampleMaker } from './telemetry.js';
export type { OfferHandling } from './offers.js';
export { DeviceConnectError, SimulatorOptionsError, type ConnectFailure } from './errors.js';
