export {
  DEFAULT_EMULATOR_URL,
  EmulatorClient,
  EmulatorHttpError,
  EmulatorUnreachableError,
  type ClientResponse,
  type EmulatorHealth,
  type RequestOptions,
} from './http-client.js';
export { readEmulatorLock, type EmulatorLock } from './emulator-lock.js';
export { registerEndpoint, type EndpointRegistration, type RegisteredEndpoint } from './endpoints.js';
export { Kp1Device, type Kp1Command, type Kp1ConnectOptions, type Kp1Reply } from './kp1-device.js';
export { requestUploadToken, uploadBlobFile, type UploadedBlob } from './binary-data.js';
