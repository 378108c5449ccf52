import type { Aedes } from 'aedes';

/** CONNACK return code 1 (MQTT 3.1.1): the broker does not speak the protocol level the client asked for. */
const UNACCEPTABLE_PROTOCOL_VERSION = 1;

/**
 * The broker (aedes 1.x) speaks MQTT 3.1 and 3.1.1. A client that asks for MQTT 5 is answered CONNACK 1,
 * "unacceptable protocol version", which every client library reports (mqtt.js: "Connection refused: Unacceptable
 * protocol version"), and the emulator says why on its log. docs/devices.md, "MQTT versions", has the evidence.
 */
export function logRefusedVersions(broker: Aedes, log: (message: string) => void): void {
  broker.on('connectionError', (client, err) => {
    if ((err as Error & { errorCode?: number }).errorCode !== UNACCEPTABLE_PROTOCOL_VERSION) return;
    const from = (client as { conn?: { remoteAddress?: string } }).conn?.remoteAddress ?? 'a client';
    log(
      `MQTT connection from ${from} asked for a protocol version this broker does not speak (it speaks MQTT 3.1 and ` +
        '3.1.1; MQTT 5 is not served yet, see docs/devices.md): refused with CONNACK 1, unacceptable protocol version.',
    );
  });
}
