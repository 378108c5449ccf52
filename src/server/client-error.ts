import type { Socket } from 'node:net';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function answer(status: number, message: string): string {
  const body = JSON.stringify({ message });
  return (
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; ` +
    `charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Requests node's HTTP parser refuses before express sees them (over-long URL or headers, a malformed request line,
 * a method it does not know) get the same `{ "message" }` body as every other error, instead of a bare status line.
 */
export function onClientError(err: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  let status = 400;
  let message = `The request could not be read: ${err.message} (${err.code ?? 'parse error'}).`;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message =
      'The request line (URL) or the headers are larger than the server accepts (16 KiB in all): shorten the ' +
      'URL or the headers.';
  } else if (err.code === 'HPE_INVALID_METHOD') {
    message = 'The request method is not one HTTP knows; the platform uses GET, POST, PUT, PATCH and DELETE.';
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'The request did not arrive in time.';
  }
  socket.end(answer(status, message));
}
