import mqtt from 'mqtt';

/** What a CONNECT with these credentials gets: `ok`, or the CONNACK return code of the refusal. */
export async function connectAnswer(
  mqttUrl: string,
  credentials: { username?: string; password?: string } = {},
  connectTimeout = 5000,
): Promise<'ok' | number> {
  try {
    const client = await mqtt.connectAsync(mqttUrl, { ...credentials, reconnectPeriod: 0, connectTimeout });
    await client.endAsync();
    return 'ok';
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'number') throw err;
    return code;
  }
}
