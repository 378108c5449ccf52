import type { Kp1Command, Kp1Device } from '../../client/index.js';
import type { Report } from './reporter.js';
import { answerFrom, ruleFor, type Answer, type Rules } from './rules.js';
import type { SampleMaker } from './telemetry.js';

export interface ReceivedCommand {
  token: string;
  appVersion: string;
  endpointId?: string;
  commandType: string;
  commandId: number;
  payload: unknown;
}

export interface DeviceBehaviour {
  rules?: Rules;
  /** Asks a person instead of applying the rules (`--interactive`); gets the rule's answer as a suggestion. */
  decide?: (command: ReceivedCommand, suggested: Answer) => Promise<Answer>;
  metadata?: Record<string, unknown>;
  telemetry?: { makeSample: SampleMaker; intervalMs: number };
}

/** One simulated device: answers commands on its KP1 connection, publishes metadata and telemetry. */
export class SimulatedDevice {
  answered = 0;
  /** Commands received and not yet acknowledged by the server, so that repeated pushes are answered once. */
  private readonly inFlight = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private telemetryTimer: NodeJS.Timeout | undefined;
  private telemetryFailing: string | undefined;
  private stopped = false;

  constructor(
    private readonly device: Kp1Device,
    private readonly behaviour: DeviceBehaviour,
    private readonly report: Report,
    private readonly endpointId?: string,
  ) {
    device.on('commands', (commandType: string, commands: Kp1Command[]) => this.receive(commandType, commands));
  }

  get token(): string {
    return this.device.token;
  }

  /** After connecting: metadata, then any commands left outstanding for the types the rules name, then telemetry. */
  async start(): Promise<void> {
    if (this.behaviour.metadata) await this.publishMetadata(this.behaviour.metadata);
    for (const commandType of Object.keys(this.behaviour.rules?.commands ?? {})) {
      try {
        this.receive(commandType, await this.device.poll(commandType));
      } catch (err) {
        this.report({ event: 'error', token: this.token, message: (err as Error).message });
      }
    }
    const telemetry = this.behaviour.telemetry;
    if (telemetry) this.telemetryTimer = setInterval(() => void this.publishSample(telemetry.makeSample()), telemetry.intervalMs);
  }

  private async publishMetadata(metadata: Record<string, unknown>): Promise<void> {
    try {
      const reply = await this.device.request('epmx', 'update/keys', metadata);
      if (reply.ok) this.report({ event: 'metadata', token: this.token, metadata });
      else this.report({ event: 'error', token: this.token, statusCode: reply.statusCode, message: `metadata rejected: ${reply.reasonPhrase ?? ''}`.trim() });
    } catch (err) {
      this.report({ event: 'error', token: this.token, message: `metadata: ${(err as Error).message}` });
    }
  }

  /** Failures are reported once until a sample gets through again, not once per interval. */
  private async publishSample(sample: Record<string, unknown>): Promise<void> {
    let failure: string | undefined;
    let statusCode: number | undefined;
    try {
      const reply = await this.device.request('dcx', 'json', sample);
      if (reply.ok) {
        this.telemetryFailing = undefined;
        this.report({ event: 'telemetry', token: this.token, sample });
        return;
      }
      statusCode = reply.statusCode;
      failure = `telemetry rejected: ${reply.reasonPhrase ?? 'no reason given'}`;
    } catch (err) {
      failure = `telemetry: ${(err as Error).message}`;
    }
    if (this.stopped || failure === this.telemetryFailing) return;
    this.telemetryFailing = failure;
    this.report({ event: 'error', token: this.token, statusCode, message: `${failure} (reported once until a sample succeeds)` });
  }

  private receive(commandType: string, commands: Kp1Command[]): void {
    for (const command of commands) {
      const key = `${commandType}#${command.id}`;
      if (this.stopped || this.inFlight.has(key) || typeof command.id !== 'number') continue;
      this.inFlight.add(key);
      void this.handle(commandType, command, key);
    }
  }

  private async handle(commandType: string, command: Kp1Command, key: string): Promise<void> {
    const received: ReceivedCommand = {
      token: this.token,
      appVersion: this.device.options.appVersion,
      endpointId: this.endpointId,
      commandType,
      commandId: command.id,
      payload: command.payload,
    };
    this.report({ event: 'command', token: this.token, commandType, commandId: command.id, payload: command.payload });
    try {
      const suggested = answerFrom(ruleFor(this.behaviour.rules, commandType), { ...received, now: new Date().toISOString() });
      const answer = this.behaviour.decide ? await this.behaviour.decide(received, suggested) : suggested;
      if (answer.ignore) {
        if (!this.stopped) this.report({ event: 'ignored', token: this.token, commandType, commandId: command.id });
        return;
      }
      if (answer.delayMs > 0) await this.sleep(answer.delayMs);
      if (this.stopped) return;
      const result = {
        id: command.id,
        statusCode: answer.statusCode,
        ...(answer.reasonPhrase !== undefined ? { reasonPhrase: answer.reasonPhrase } : {}),
        ...(answer.payload !== undefined ? { payload: answer.payload } : {}),
      };
      const reply = await this.device.answer(commandType, [result]);
      if (!reply.ok) {
        this.report({ event: 'error', token: this.token, statusCode: reply.statusCode, message: `result for ${commandType} #${command.id} rejected: ${reply.reasonPhrase ?? ''}`.trim() });
        return;
      }
      this.inFlight.delete(key);
      this.answered++;
      this.report({ event: 'answered', token: this.token, commandType, commandId: command.id, statusCode: answer.statusCode, reasonPhrase: answer.reasonPhrase, payload: answer.payload });
    } catch (err) {
      if (!this.stopped) this.report({ event: 'error', token: this.token, message: `${commandType} #${command.id}: ${(err as Error).message}` });
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.telemetryTimer);
    for (const timer of this.timers) clearTimeout(timer);
    await this.device.close();
  }
}
