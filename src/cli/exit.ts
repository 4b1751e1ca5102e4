import { isSynapseError, type ErrorCode } from '../errors.js';

/**
 * Exit codes, one per error family (documented in `synapse --help` and the README's "Commands"):
 * 0 ok · 1 usage, bad input, working-dir mismatch, spawn depth exceeded, other errors · 2 unknown profile, CLI not found, or the
 * CLI exited during start-up
 * · 3 target not found or ambiguous · 4 target not ready (or its inbox is full of your messages) · 5 delivery failed / agent unreachable / a queued message expired
 * · 6 answer timed out.
 */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = {
  usage: 1,
  invalid_input: 1,
  unauthorized: 1,
  admin_required: 1,
  working_dir_mismatch: 1,
  not_awaiting_plan: 1,
  delegate_mode: 1,
  spawn_depth_exceeded: 1,
  store_unavailable: 1,
  unknown_profile: 2,
  command_not_found: 2,
  cli_exited: 2,
  port_range_full: 2,
  target_not_found: 3,
  ambiguous_target: 3,
  agent_not_ready: 4,
  queue_full: 4,
  delivery_failed: 5,
  message_expired: 5,
  agent_unreachable: 5,
  answer_timeout: 6,
};

function exitCodeFor(err: unknown): number {
  if (isSynapseError(err)) return EXIT_CODES[err.code] ?? 1;
  return 1;
}

/** Thrown by commands that want a specific exit code without an error message. */
export class ExitRequest extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/**
 * How a command's error ends the process: the line for stderr (none for an `ExitRequest`) and
 * the exit code. `main` uses it, and so do the in-process command tests.
 */
export function exitFor(err: unknown): { code: number; message: string | null } {
  if (err instanceof ExitRequest) return { code: err.exitCode, message: null };
  const message = isSynapseError(err) ? err.message : ((err as Error)?.stack ?? String(err));
  return { code: exitCodeFor(err), message: `synapse: ${message}\n` };
}
