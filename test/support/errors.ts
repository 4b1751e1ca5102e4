import { SynapseError } from '../../src/errors.js';

/** The SynapseError `fn` throws (any other error is rethrown; no error at all fails the test). */
export function synapseErrorOf(fn: () => unknown): SynapseError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SynapseError) return err;
    throw err;
  }
  throw new Error('expected a SynapseError');
}
