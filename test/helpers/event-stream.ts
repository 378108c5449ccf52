import { request } from 'undici';

export interface StreamEvent {
  event: string;
  data: any;
}

/** A reader of `GET /_emu/events`: collects events and waits for the first that matches. */
export async function openStream(url: string, query = '', headers: Record<string, string> = {}) {
  const response = await request(`${url}/_emu/events${query}`, { headers });
  const events: StreamEvent[] = [];
  const waiters: Array<{ match: (e: StreamEvent) => boolean; resolve: (e: StreamEvent) => void }> = [];
  let buffer = '';
  const reading = (async () => {
    for await (const chunk of response.body) {
      buffer += (chunk as Buffer).toString('utf8');
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!event || data === undefined) continue;
        const parsed = { event, data: JSON.parse(data) };
        events.push(parsed);
        for (const waiter of [...waiters]) if (waiter.match(parsed)) waiters.splice(waiters.indexOf(waiter), 1), waiter.resolve(parsed);
      }
    }
  })();
  return {
    status: response.statusCode,
    headers: response.headers,
    events,
    next(match: (e: StreamEvent) => boolean): Promise<StreamEvent> {
      const seen = events.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: async () => {
      response.body.destroy();
      await reading.catch(() => undefined);
    },
  };
}
