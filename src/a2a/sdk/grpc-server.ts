import type { A2ARequestHandler } from '@a2a-js/sdk/server';

export interface GrpcHandle {
  /** `host:port`, as gRPC clients dial it (and the card lists it). */
  address: string;
  close(): Promise<void>;
}

/** A stopping agent waits this long for calls in flight before cutting them. */
const SHUTDOWN_GRACE_MS = 1000;

/**
 * The SDK's gRPC service over the same request handler as the HTTP bindings, on its own port.
 * gRPC is loaded only here (about 80 ms of imports), after the HTTP server is already up.
 */
export async function startGrpcServer(handler: A2ARequestHandler, host: string, port: number): Promise<GrpcHandle> {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const server = new grpc.Server();
  server.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return {
    address: `${host}:${bound}`,
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
