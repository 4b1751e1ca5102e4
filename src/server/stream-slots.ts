import { SynapseError } from '../errors.js';

/** Seconds a refused stream client is told to wait before it tries again. */
const STREAM_RETRY_AFTER_S = 10;

/**
 * The SSE streams open on one agent (Synapse's `/events` and `/tasks/{id}/subscribe`, A2A's
 * streaming calls), at most `limit` at a time (`SYNAPSE_MAX_SSE_STREAMS`): each stream holds a
 * socket, a keepalive timer and a journal subscription for as long as the client stays.
 */
export class StreamSlots {
  private open = 0;

  constructor(readonly limit: number) {}

  /** The error a stream over the limit is refused with (429, `too_many_streams`), or null when there is room. */
  refusal(): SynapseError | null {
    if (this.open < this.limit) return null;
    return new SynapseError(
      'too_many_streams',
      `${this.open} event streams are open on this agent (limit ${this.limit}, SYNAPSE_MAX_SSE_STREAMS): close one, or try again in ${STREAM_RETRY_AFTER_S} s`,
      { open: this.open, limit: this.limit, retry_after: STREAM_RETRY_AFTER_S },
    );
  }

  /** Takes a slot until `done` fires (the response closed); throws the refusal when there is none. */
  take(done: { once(event: 'close', cb: () => void): unknown }): void {
    const refused = this.refusal();
    if (refused) throw refused;
    this.open++;
    done.once('close', () => this.open--);
  }
}
