import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { CardInput } from '../card.js';
import { buildA2aCard } from './card.js';
import { SynapseExecutor } from './executor.js';
import { InflightKeys } from './inflight-keys.js';
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
  /** Where gRPC listens (`host:port`), or null: the card lists gRPC only then. */
  grpcAddress?: () => string | null;
}

/**
 * Everything behind the A2A bindings of one agent: the SDK's DefaultRequestHandler over the
 * runtime (executor, task store bridge, event buses fed by the runtime), push notifications,
 * and the transport handlers the HTTP routes and gRPC call into. Built on the first A2A request
 * (server/routes/a2a-routes.ts): an agent nobody talks A2A to never loads the SDK.
 */
export class A2aService {
  readonly store: SynapseTaskStore;
  readonly buses: TaskFeedBuses;
  readonly pushConfigs = new PushConfigStore();
  readonly handler: SynapseRequestHandler;
  readonly jsonrpc: JsonRpcTransportHandler;
  readonly legacyJsonrpc: LegacyJsonRpcTransportHandler;
  private readonly pushes: PushDispatcher;

  constructor(private readonly opts: A2aServiceOptions) {
    const api = opts.api;
    this.store = new SynapseTaskStore(api);
    this.buses = new TaskFeedBuses(api);
    const keys = new InflightKeys();
    const executor = new SynapseExecutor(api, this.store, this.buses, keys);
    // The SDK reads capabilities (streaming, push) from this card; they never change.
    const inner = new DefaultRequestHandler(this.card(), this.store, executor, this.buses, this.pushConfigs, runtimeDrivenPushes);
    this.handler = new SynapseRequestHandler(inner, api, () => this.card(), keys);
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

  /** The current card: gRPC is listed once its port listens. */
  card(): AgentCard {
    return buildA2aCard(this.opts.card(), { base: this.opts.api.entry().endpoint, grpc: this.opts.grpcAddress?.() ?? null });
  }

  close(): void {
    this.pushes.stop();
    this.buses.close();
  }
}
