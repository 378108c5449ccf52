import { request } from 'undici';
import { serverSentEvents } from '../../src/client/event-stream.js';

export interface StreamEvent {
  event: string;
  data: any;
}

/** A reader of `GET /_emu/events`: collects events and waits for the first that matches. */
export async function openStream(url: string, query = '', headers: Record<string, string> = {}) {
  const response = await request(`${url}/_emu/events${query}`, { headers });
  const events: StreamEvent[] = [];
  const waiters: Array<{ match: (e: StreamEvent) => boolean; resolve: (e: StreamEvent) => void }> = [];
  const reading = (async () => {
    for await (const parsed of serverSentEvents(response.body) as AsyncIterable<StreamEvent>) {
      events.push(parsed);
      for (const waiter of [...waiters])
        if (waiter.match(parsed)) (waiters.splice(waiters.indexOf(waiter), 1), waiter.resolve(parsed));
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
