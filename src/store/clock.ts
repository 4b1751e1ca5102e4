/** Milliseconds since the epoch; injected so tests can move time without sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
