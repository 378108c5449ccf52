// The same fleet against the floor (bench/references/fleet-floor.js: a bare aedes broker answering every request at
// once, and node:http answering the health probe on its thread): what the machine and the simulator leave of a
// fleet's targets before the emulator does any work. Shown beside 6g and 6h, measured in the same run.
import { fileURLToPath } from 'node:url';
import { cpuMeter, fleetLog, healthProbe, startFleet } from './fleet-run.js';
import { startServer, stopProcess } from './processes.js';

const FLOOR = fileURLToPath(new URL('../references/fleet-floor.js', import.meta.url));

/**
 * `devices` simulated devices, a sample a second each for `seconds`, against the floor: their publish-to-reply times
 * from `warmupSeconds` on, the floor's health answers (sorted; asked as in the emulator's run) and the cores each
 * process used. No commands: the floor serves no REST API, and the devices ask for no configuration or software at
 * connect.
 */
export async function runFleetFloor(bench, { devices, seconds, warmupSeconds }) {
  const floor = await startServer(process.execPath, [FLOOR], {
    label: 'fleet floor',
    ready: /http:\/\/\S+ mqtt:\/\/\S+/,
  });
  try {
    const [url, mqttUrl] = floor.url.split(' ');
    const log = fleetLog();
    const simulator = await startFleet(bench, {
      devices,
      args: ['--url', url, '--mqtt-url', mqttUrl, '--no-config', '--no-software'],
      log,
    });
    log.timedFrom = Date.now() + warmupSeconds * 1000;
    const health = healthProbe(url);
    const cpu = cpuMeter({ floor: floor.child.pid, simulator: simulator.child.pid });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 500));
    const cores = cpu.cores();
    const healthTimes = (await health.stop()).sort((a, b) => a - b);
    await stopProcess(simulator.child);
    return { latencies: log.latencies, healthTimes, cores };
  } finally {
    await stopProcess(floor.child);
  }
}
