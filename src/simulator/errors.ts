/** Options a simulation cannot run with (rules that do not validate, a bad telemetry spec): fix them and retry. */
export class SimulatorOptionsError extends Error {
  override name = 'SimulatorOptionsError';
}

export interface ConnectFailure {
  token: string;
  message: string;
}

/** Devices that could not connect, or whose token the broker refused; the devices that did connect were closed. */
export class DeviceConnectError extends Error {
  override name = 'DeviceConnectError';

  constructor(readonly failures: ConnectFailure[]) {
    super(failures.map((failure) => `${failure.token}: ${failure.message}`).join('\n'));
  }
}
