/** One server-sent event of `GET /_emu/events`: its name and its JSON data. */
export interface ServerSentEvent {
  event: string;
  data: unknown;
}

/** The events of a server-sent event stream as they arrive (blocks without an event name or data are skipped). */
export async function* serverSentEvents(body: AsyncIterable<Buffer | string>): AsyncGenerator<ServerSentEvent> {
  let buffer = '';
  for await (const chunk of body) {
    buffer += chunk.toString();
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data !== undefined) yield { event, data: JSON.parse(data) };
    }
  }
}
