import type { FastifyReply } from 'fastify';
import type { StreamSlots } from '../stream-slots.js';

const KEEPALIVE_MS = 15_000;

/**
 * Streams an SDK event generator as Server-Sent Events. The first event is awaited before any
 * header goes out ("peek"), so a request the SDK refuses up front (unknown task, bad params)
 * is answered as a normal error response instead of a stream with one error in it. The stream
 * takes one of the agent's stream slots first: with none left it is refused the same way
 * (`too_many_streams`), before the SDK has run anything.
 */
export async function streamSse<T>(
  reply: FastifyReply,
  streams: StreamSlots,
  events: AsyncGenerator<T, void, undefined>,
  encode: (event: T) => unknown,
  onEarlyError: (err: unknown) => unknown,
  encodeError: (err: unknown) => unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  let first: IteratorResult<T, void>;
  try {
    streams.take(reply.raw);
  } catch (err) {
    void events.return(undefined).catch(() => undefined);
    return onEarlyError(err);
  }
  try {
    first = await events.next();
  } catch (err) {
    return onEarlyError(err);
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  let gone = false;
  // A client that goes away ends this loop at once, even while the SDK waits for the task's
  // next event (its keepalive timer with it); the SDK drops its queue once that wait resolves.
  const closed = new Promise<null>((resolve) =>
    raw.once('close', () => {
      gone = true;
      void events.return(undefined).catch(() => undefined);
      resolve(null);
    }),
  );
  const write = (text: string) => {
    if (!gone && !raw.writableEnded) raw.write(text);
  };
  try {
    if (!first.done) write(`data: ${JSON.stringify(encode(first.value))}\n\n`);
    if (!first.done) {
      for (;;) {
        const pending = events.next();
        pending.catch(() => undefined); // settles after the client left: nobody is waiting for it then
        const next = await Promise.race([pending, closed]);
        if (next === null || next.done || gone) break;
        write(`data: ${JSON.stringify(encode(next.value))}\n\n`);
      }
    }
  } catch (err) {
    write(`event: error\ndata: ${JSON.stringify(encodeError(err))}\n\n`);
  } finally {
    clearInterval(keepalive);
    if (!raw.writableEnded) raw.end();
  }
  return reply;
}
