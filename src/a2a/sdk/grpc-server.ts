import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type * as GrpcJs from '@grpc/grpc-js';
import type { ServerTls } from '../../config/tls.js';

export interface GrpcHandle {
  /** `host:port`, as gRPC clients dial it (and the card lists it). */
  address: string;
  close(): Promise<void>;
}

/**
 * Who may call (the agent's API keys, built by the server layer): given a call's metadata (the
 * first text value of an entry, by lower-case name) and its peer address, null lets the call
 * through, a string ends it with UNAUTHENTICATED and that string as details.
 */
type GrpcCallCheck = (metadata: (name: string) => string | undefined, remoteAddress: string | undefined) => string | null;

export interface GrpcOptions {
  /** Largest message read (`SYNAPSE_MAX_BODY_BYTES`). */
  maxMessageBytes?: number;
  /** TLS with the agent's certificate (`SYNAPSE_USE_HTTPS`). */
  tls?: ServerTls;
  /** The API-key check (`SYNAPSE_AUTH_ENABLED`); none: every caller passes. */
  check?: GrpcCallCheck | null;
}

/** A stopping agent waits this long for calls in flight before cutting them. */
const SHUTDOWN_GRACE_MS = 1000;

interface GrpcServing {
  inject(connection: Duplex): void;
  close(): Promise<void>;
}

/**
 * The SDK's gRPC service over `handler`, fed connections by hand (grpc-js's connection injector);
 * with `tls`, each connection does its TLS handshake before HTTP/2, as on the agent's HTTP port.
 */
async function serveGrpc(handler: A2ARequestHandler, { maxMessageBytes, tls, check }: GrpcOptions): Promise<GrpcServing> {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const server = new grpc.Server({
    // A larger message is refused with RESOURCE_EXHAUSTED, as HTTP refuses a larger body with 413.
    ...(maxMessageBytes ? { 'grpc.max_receive_message_length': maxMessageBytes } : {}),
    ...(check ? { interceptors: [keyInterceptor(grpc, check)] } : {}),
  });
  server.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const credentials = tls
    ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], false)
    : grpc.ServerCredentials.createInsecure();
  const injector = server.createConnectionInjector(credentials);
  return {
    inject: (connection) => injector.injectConnection(connection),
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, SHUTDOWN_GRACE_MS);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

/**
 * A server interceptor that checks every call's metadata (all methods, unary and streaming)
 * before the SDK's handler sees it: a refused call ends with UNAUTHENTICATED and never reaches
 * the service, not even its request message.
 */
function keyInterceptor(grpc: typeof GrpcJs, check: GrpcCallCheck): GrpcJs.ServerInterceptor {
  return (_method, call) => {
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const entry = (name: string): string | undefined => metadata.get(name).find((v): v is string => typeof v === 'string');
        const refused = check(entry, call.getConnectionInfo().remoteAddress);
        if (refused === null) next(metadata);
        else call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: refused });
      })
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };
}

/**
 * gRPC on its own port, loaded on the first connection: the port is bound at once (a plain TCP
 * listener costs nothing), and gRPC with the SDK's service (about 14 MiB and 100 ms of imports)
 * loads only when a client connects. Connections wait, unread, until it has loaded; then each is
 * handed to the gRPC server as if it had accepted it itself. `handler` loads the A2A service.
 */
export async function listenGrpc(
  host: string,
  port: number,
  handler: () => Promise<A2ARequestHandler>,
  log: (msg: string) => void,
  options: GrpcOptions = {},
): Promise<GrpcHandle> {
  let serving: Promise<GrpcServing> | null = null;
  let closing = false;
  const sockets = new Set<net.Socket>();
  const listener = net.createServer({ pauseOnConnect: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serving ??= handler().then((h) => serveGrpc(h, options));
    serving.then(
      (s) => {
        if (closing) socket.destroy();
        if (socket.destroyed) return;
        s.inject(socket);
        socket.resume();
      },
      (err: Error) => {
        log(`a2a gRPC: cannot load the gRPC service: ${err.message}`);
        socket.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host, port, exclusive: true }, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const bound = (listener.address() as net.AddressInfo).port;
  return {
    address: `${host}:${bound}`,
    close: async () => {
      closing = true;
      // The listener counts the connections it handed over: it closes once they are gone.
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      const s = await serving?.catch(() => null);
      if (s) await s.close();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
