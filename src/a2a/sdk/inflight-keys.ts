/**
 * Idempotency keys of A2A sends still on their way to the runtime (issue 21 §3). A send holds its
 * key from the moment it was found new until the runtime has the task (`release`): the SDK
 * awaits between the request and the executor, so a retry arriving in that gap waits for the
 * first send instead of making a second task.
 */
export class InflightKeys {
  private readonly held = new Map<string, { done: Promise<void>; release: () => void }>();

  /** Null when nobody holds `key` (the caller holds it now, until `release`); else when the holder lets go. */
  hold(key: string): Promise<void> | null {
    const current = this.held.get(key);
    if (current) return current.done;
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    this.held.set(key, { done, release });
    return null;
  }

  /** Lets go of `key` (again is harmless). */
  release(key: string): void {
    const current = this.held.get(key);
    if (!current) return;
    this.held.delete(key);
    current.release();
  }
}

/** The runtime's idempotency key of an A2A message: its `messageId`, in a namespace of its own. */
export function a2aMessageKey(messageId: string): string {
  return `a2a-message:${messageId}`;
}
