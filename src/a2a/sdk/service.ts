import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { CardInput } from '../card.js';
import { buildA2aCard } from './card.js';
import { SynapseExecutor } from './executor.js';
import { startGrpcServer, type GrpcHandle } from './grpc-server.js';
import { PushDispatcher, runtimeDrivenPushes } from './push-dispatch.js';
import { PushConfigStore } from './push-store.js';
import { SynapseRequestHandler } from './request-handler.js';
import { TaskFeedBuses } from './task-feed.js';
import { SynapseTaskStore } from './task-store.js';

export interface A2aServiceOptions {
  api: AgentApi;
  card: () => CardInput;
  log: (msg: string) => void;
  /** Push retry waits (tests use a few milliseconds). */
  pushBackoffMs?: readonly number[];
}

/**
 * Everything behind the A2A bindings of one agent: the SDK's DefaultRequestHandler over the
 * runtime (executor, task store bridge, event buses fed by the runtime), push notifications,
 * and the transport handlers the HTTP routes and gRPC call into.
 */
export class A2aService {
  readonly store: SynapseTaskStore;
  readonly buses: TaskFeedBuses;
  readonly pushConfigs = new PushConfigStore();
  readonly handler: SynapseRequestHandler;
  readonly jsonrpc: JsonRpcTransportHandler;
  readonly legacyJsonrpc: LegacyJsonRpcTransportHandler;
  private readonly pushes: PushDispatcher;
  private grpc: GrpcHandle | null = null;
  private grpcStarting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: A2aServiceOptions) {
    const api = opts.api;
    this.store = new SynapseTaskStore(api);
    this.buses = new TaskFeedBuses(api);
    const executor = new SynapseExecutor(api, this.store, this.buses);
    // The SDK reads capabilities (streaming, push) from this card; they never change.
    const inner = new DefaultRequestHandler(this.card(), this.store, executor, this.buses, this.pushConfigs, runtimeDrivenPushes);
    this.handler = new SynapseRequestHandler(inner, api, () => this.card());
    this.jsonrpc = new JsonRpcTransportHandler(this.handler);
    this.legacyJsonrpc = new LegacyJsonRpcTransportHandler(this.handler);
    this.pushes = new PushDispatcher({
      api,
      store: this.pushConfigs,
      view: (t) => this.store.view(t),
      log: opts.log,
      ...(opts.pushBackoffMs ? { backoffMs: opts.pushBackoffMs } : {}),
    });
    this.pushes.start();
  }

  /** The current card: gRPC is listed once its server listens. */
  card(): AgentCard {
    return buildA2aCard(this.opts.card(), { base: this.opts.api.entry().endpoint, grpc: this.grpc?.address ?? null });
  }

  /** Starts gRPC on `port`; a failure (port taken) is logged and the card simply omits gRPC. */
  startGrpc(host: string, port: number): Promise<void> {
    this.grpcStarting = (async () => {
      try {
        const grpc = await startGrpcServer(this.handler, host, port);
        // The app may have closed while gRPC was loading.
        if (this.closed) await grpc.close();
        else {
          this.grpc = grpc;
          this.opts.log(`a2a gRPC listening on ${grpc.address}`);
        }
      } catch (err) {
        this.opts.log(`a2a gRPC not started on ${host}:${port}: ${(err as Error).message}`);
      }
    })();
    return this.grpcStarting;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pushes.stop();
    this.buses.close();
    await this.grpcStarting;
    const grpc = this.grpc;
    this.grpc = null;
    await grpc?.close();
  }
}
