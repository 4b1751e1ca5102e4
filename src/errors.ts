/**
 * One error type for the whole project. `code` is stable and machine-readable;
 * HTTP maps it to a status in server/errors.ts and the CLI to an exit code in cli/exit.ts.
 */
export type ErrorCode =
  | 'usage'
  | 'invalid_input'
  | 'unknown_profile'
  | 'command_not_found'
  | 'cli_exited'
  | 'port_range_full'
  | 'target_not_found'
  | 'ambiguous_target'
  | 'agent_not_ready'
  | 'agent_unreachable'
  | 'task_not_found'
  | 'ambiguous_task'
  | 'task_not_cancelable'
  | 'delivery_failed'
  | 'answer_timeout'
  | 'working_dir_mismatch'
  | 'not_found'
  | 'conflict'
  | 'not_awaiting_plan'
  | 'delegate_mode'
  | 'spawn_depth_exceeded'
  | 'lock_held'
  | 'blocked'
  | 'database_error'
  | 'store_unavailable'
  | 'corrupt_file'
  | 'unsupported_media_type'
  | 'forbidden_origin'
  | 'forbidden_host'
  | 'unauthorized'
  | 'admin_required'
  | 'message_too_large'
  | 'queue_full'
  | 'idempotency_key_reused'
  | 'message_expired'
  | 'too_many_streams'
  | 'too_many_webhooks'
  | 'internal';

export class SynapseError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'SynapseError';
    this.code = code;
    this.details = details;
  }
}

export function isSynapseError(err: unknown): err is SynapseError {
  return err instanceof SynapseError;
}
