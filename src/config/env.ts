/** Process environment, passed in so tests can point every path at a temp dir. */
export type Env = Record<string, string | undefined>;
