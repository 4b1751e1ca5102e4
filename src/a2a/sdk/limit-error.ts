import { A2AError } from '@a2a-js/sdk/errors';
import { isSynapseError, type ErrorCode, type SynapseError } from '../../errors.js';

/** The Synapse codes of a limit an A2A call can run into (src/runtime/admission.ts, server/stream-slots.ts). */
const LIMIT_CODES: ReadonlySet<ErrorCode> = new Set(['message_too_large', 'queue_full', 'too_many_streams']);

/** gRPC status codes (google.rpc.Code). */
const GRPC_INVALID_ARGUMENT = 3;
const GRPC_RESOURCE_EXHAUSTED = 8;

/**
 * A Synapse limit refusing an A2A call: A2A has no error of its own for it. JSON-RPC and
 * HTTP+JSON answer it in the routes (server/routes/a2a-limits.ts: 413 / 429 with Retry-After);
 * the SDK's gRPC server reads a gRPC status from an error marked as gRPC's (`transport`,
 * `status`), so gRPC callers get INVALID_ARGUMENT or RESOURCE_EXHAUSTED instead of UNKNOWN.
 */
export class LimitError extends A2AError {
  readonly transport = 'grpc';
  readonly status: number;

  constructor(readonly synapse: SynapseError) {
    const metadata: Record<string, string> = { synapseCode: synapse.code };
    for (const [k, v] of Object.entries(synapse.details ?? {})) if (typeof v === 'string' || typeof v === 'number') metadata[k] = String(v);
    super({ message: synapse.message, metadata });
    Object.defineProperty(this, 'reason', { value: synapse.code.toUpperCase() });
    this.status = synapse.code === 'message_too_large' ? GRPC_INVALID_ARGUMENT : GRPC_RESOURCE_EXHAUSTED;
  }
}

/** The limit error inside `err` (ours, or the A2A error made from it), or null. */
export function limitOf(err: unknown): SynapseError | null {
  if (err instanceof LimitError) return err.synapse;
  if (isSynapseError(err) && LIMIT_CODES.has(err.code)) return err;
  return null;
}

/** `err` as the SDK should see it: a limit becomes a `LimitError`, anything else is unchanged. */
export function toSdkError(err: unknown): unknown {
  return isSynapseError(err) && LIMIT_CODES.has(err.code) ? new LimitError(err) : err;
}
