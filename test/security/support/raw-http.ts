import net from 'node:net';
import type { Gen } from './fuzz-gen.js';

/**
 * Bytes that are not a well-formed HTTP/1.1 request, as a client that is not Node's would send
 * them: unknown methods, raw non-ASCII and controls in the target, broken header lines, request
 * smuggling shapes, oversized headers, bad chunking.
 */
export function rawRequest(g: Gen, port: number): Buffer {
  const host = `Host: 127.0.0.1:${port}\r\n`;
  const shapes = [
    () => `FOO /status HTTP/1.1\r\n${host}\r\n`,
    () => `GET /\u00e9\u0001 HTTP/1.1\r\n${host}\r\n`,
    () => `GET /status HTTP/9.9\r\n${host}\r\n`,
    () => `GET /status\r\n\r\n`,
    () => `GET /status HTTP/1.1\r\n${host}Bad Header\r\n\r\n`,
    () => `GET /status HTTP/1.1\r\n${host}X-A: a\u0000b\r\n\r\n`,
    () => `POST /tasks/send HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    () => `POST /tasks/send HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    () => `POST /tasks/send HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: -1\r\n\r\n`,
    () => `POST /tasks/send HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    () => `GET /status HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    () => `GET /status HTTP/1.1\n${host.replace('\r\n', '\n')}\n`,
    () => `\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03`, // a TLS ClientHello on the plain port
    () => `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
    () => Array.from({ length: g.int(200) }, () => String.fromCharCode(g.int(256))).join(''),
  ];
  return Buffer.from(g.pick(shapes)(), 'latin1');
}

/** Writes the bytes, half-closes, and collects what comes back until the server closes (or `ms`). */
export function sendRaw(port: number, bytes: Buffer, ms: number): Promise<{ data: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ data, closed: false });
    }, ms);
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (data += c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, closed: true });
    });
    socket.end(bytes);
  });
}
