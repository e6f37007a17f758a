/**
 * `writeResponse(res, response)`: writes a web `Response` (what the SDK's web-standard transports return)
 * to a Node `ServerResponse`. An SSE body (`text/event-stream`) is streamed: its headers leave with its
 * first event, or at once when none is ready yet, never after a timer (`@hono/node-server`'s listener
 * holds an SSE response ≥ 1 ms when its first chunk is alone, e.g. the SDK's priming event, to guess a
 * Content-Length). Writes honour backpressure (`write()` false: wait for `drain`), and a client that goes
 * away cancels the body, which tells the SDK the stream is gone. Any other body is read whole and sent
 * with its `Content-Length` (so HTTP/1.0 clients and HEAD requests get what they got from the SDK's
 * Node adapter).
 * @module
 */
import type { ServerResponse } from 'node:http';

/** Resolves `undefined` on the next microtasks, so a race with a `read()` tells whether a chunk is queued. */
const notYet = (): Promise<undefined> => Promise.resolve(undefined);

/**
 * Writes `response` to `res` and resolves when it has been written out, or when the client went away
 * (the body is then cancelled). A body stream that errors destroys `res`. Never rejects.
 */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body;
  if (!body) return void res.writeHead(response.status, headers).end();
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const bytes = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(bytes.byteLength);
    return void res.writeHead(response.status, headers).end(bytes);
  }
  res.writeHead(response.status, headers);
  return pipeEvents(res, body.getReader());
}

/** Streams an SSE body to `res` (the response itself is not kept while the stream lasts). */
async function pipeEvents(res: ServerResponse, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  if (res.destroyed) return void reader.cancel().catch(() => undefined);
  const cancel = () => {
    if (!res.writableFinished) reader.cancel().catch(() => undefined);
  };
  res.once('close', cancel);
  try {
    let next = reader.read();
    // Nothing queued yet (e.g. a GET stream): the client must see the headers before the first event.
    if (!(await Promise.race([next, notYet()]))) res.flushHeaders();
    for (;;) {
      const { done, value } = await next;
      if (done || res.destroyed) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
      next = reader.read();
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
}
