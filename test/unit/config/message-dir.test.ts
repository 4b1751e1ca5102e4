import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageFileDir } from '../../../src/config/paths.js';

describe('the long-message directory', () => {
  it('is SYNAPSE_LONG_MESSAGE_DIR, else its older name SYNAPSE_MESSAGE_DIR, else a per-user temp dir', () => {
    expect(messageFileDir({ SYNAPSE_LONG_MESSAGE_DIR: '/new', SYNAPSE_MESSAGE_DIR: '/old' })).toBe('/new');
    expect(messageFileDir({ SYNAPSE_MESSAGE_DIR: '/old' })).toBe('/old');
    expect(messageFileDir({ TMPDIR: '/tmp/x' })).toMatch(new RegExp(`^${path.join('/tmp/x', 'synapse-')}[^/]+/messages$`));
  });
});
