import type { AuthMode, MqttAuthMode, TlsClientAuthMode } from '../index.js';

/** The flags of `start` (also taken by `exec` and the detached child). */
export interface StartOptions {
  port: number;
  host: string;
  data: string;
  inMemory?: boolean;
  fixtures: string;
  auth: AuthMode;
  compat: Record<string, string>;
  quiet?: boolean;
  json?: boolean;
  detach?: boolean;
  detachedChild?: boolean;
  import?: string;
  exportOnExit?: string;
  bodyLimit: number;
  asyncTimeout: number;
  mqttPort: number;
  mqttAuth: MqttAuthMode;
  compactBytes?: number;
  uploadTokenTtl: number;
  uploadLimit: number;
  journalSize: number;
  allowHost: string[];
  adminToken?: string;
  log?: 'requests';
  allowOrigin: string[];
  mqttsPort: number;
  httpsPort?: number;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientAuth: TlsClientAuthMode;
  generateAppNames?: boolean;
}
