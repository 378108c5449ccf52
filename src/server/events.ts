/** Names of the in-process events (`ctx.events`) that more than one floor listens to. */

/** The whole state was replaced (reset, import, snapshot restore): caches built on the old state must go. */
export const STATE_REPLACED = 'state:replaced';

/**
 * The virtual clock moved (`ClockChange`). Timers re-arm and run what became due; a listener whose work is
 * asynchronous pushes its promise onto `work`, and the move is answered once all of it is done.
 */
export const CLOCK_CHANGED = 'clock:changed';

/** A REST request was answered, or a KP1 message handled or pushed: a request journal entry (`JournalEntry`). */
export const REQUEST_RECORDED = 'journal:recorded';

/**
 * A command was created, or changed status, or was deleted: `{ commandId, endpointId, tenantId, commandType, status }`.
 */
export const COMMAND_CHANGED = 'command:changed';

/** An endpoint was registered or changed: `{ endpointId, tenantId, change }`. */
export const ENDPOINT_CHANGED = 'endpoint:changed';

/** A device connection came up or went down: the gateway's `DeviceConnection`. */
export const CONNECTION_CHANGED = 'connection:changed';

/** A fault was added or removed: `{ faults }`, the list after the change. */
export const FAULTS_CHANGED = 'faults:changed';

/** An e-mail was captured (the automation connector's outgoing mail): the `CapturedMail`. */
export const MAIL_CAPTURED = 'automation:mail';

/** A simulated device of the dashboard started, stopped or did something: `{ token, change, device? }`. */
export const DEVICE_CHANGED = 'ui:device';

/** The emulator is stopping: open event streams end. */
export const EMULATOR_STOPPING = 'emulator:stopping';

/**
 * Basic or X.509 credentials changed state (`CredentialChange`): the gateway disconnects the clients they logged in.
 */
export const CREDENTIAL_CHANGED = 'credential:changed';

export interface CredentialChange {
  kind: 'basic' | 'x509';
  id: string;
  tenantId: string;
  state: 'Active' | 'Inactive' | 'Suspended' | 'Revoked';
}

export interface ClockChange {
  now: Date;
  mode: 'real' | 'frozen' | 'offset';
  work: Promise<unknown>[];
}
