import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceSimulation } from '../../src/simulator/device.js';
import type { DeviceEvent } from '../../src/simulator/events.js';
import { startFleet } from '../../src/simulator/fleet.js';
import { behaviourFrom } from '../../src/simulator/simulate-device.js';
import { startTestEmulator } from '../helpers/emulator.js';

const running: DeviceSimulation[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
});

describe("a fleet's kept events (keepEvents: what device.events and next() look back on)", async () => {
  const emulator = await startTestEmulator();
  const behaviour = await behaviourFrom({ telemetry: { sample: 'temperature=20', intervalMs: 20 } });

  /** A device of the fixtures sending a sample every 20 ms; resolves once `samples` samples were reported. */
  async function fleetOfOne(keepEvents: number | undefined, samples: number) {
    const reported: DeviceEvent[] = [];
    let enough!: () => void;
    const reachedEnough = new Promise<void>((resolve) => (enough = resolve));
    const [device] = await startFleet({
      appVersion: 'smart-meter-v1',
      devices: [{ token: 'meter-001-token' }],
      mqttUrl: emulator.mqttUrl,
      behaviour,
      keepEvents,
      onEvent: (event) => {
        reported.push(event);
        if (reported.filter((e) => e.event === 'telemetry').length === samples) enough();
      },
    });
    running.push(device);
    await reachedEnough;
    return { device, reported };
  }

  it('keeps only the last keepEvents of them, while every event is still reported', async () => {
    const { device, reported } = await fleetOfOne(3, 6);
    // An event is kept and reported in the same step: the kept are exactly the last three reported.
    expect(reported.length).toBeGreaterThan(3);
    expect(device.events).toEqual(reported.slice(-3));
  });

  it('keeps none with 0 (as the CLI runs its fleets), and next() still waits for an event to come', async () => {
    const { device, reported } = await fleetOfOne(0, 3);
    expect(device.events).toEqual([]);
    expect(reported.filter((e) => e.event === 'telemetry').length).toBeGreaterThanOrEqual(3);
    const next = await device.next('telemetry', () => true, { timeoutMs: 5000 });
    expect(reported).toContain(next);
  });

  it('keeps the last 1000 by default: every event of a short run', async () => {
    const { device, reported } = await fleetOfOne(undefined, 3);
    expect(device.events).toEqual(reported);
  });
});
