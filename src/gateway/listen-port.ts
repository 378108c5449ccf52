import type { AddressInfo, Server } from 'node:net';

/**
 * Listens on a broker port (MQTT or MQTTS) and resolves with the port bound; a port in use, or one that cannot be
 * opened, is an error that names the flag that moves it.
 */
export async function listenBrokerPort(
  server: Server,
  { port, host, protocol, flag }: { port: number; host: string; protocol: 'MQTT' | 'MQTTS'; flag: string },
): Promise<number> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    throw new Error(
      inUse
        ? `The ${protocol} port ${port} is in use (another broker, or another emulator?). Pick another with ` +
            `${flag}, or 0 for a free one.`
        : `The ${protocol} port ${port} cannot be opened: ${(err as Error).message}`,
    );
  }
  return (server.address() as AddressInfo).port;
}
