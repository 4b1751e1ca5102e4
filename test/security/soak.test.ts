import { describe, expect, it } from 'vitest';
import { runNode } from '../support/synapse.js';

/**
 * The soak of bench/soak.mjs, small: two echo agents, messages both ways at a rate above what
 * one agent delivers (so inboxes queue up and their order is checked), random priorities 1-4.
 * Every message typed into its receiver's PTY exactly once, and each inbox in priority order.
 * The full run (10,000 each way, RSS over time) is `npm run bench:soak`.
 */
/** MiB: an idle agent's tree is about 100; a leak of queued messages or streams would pass it. */
const RSS_CEILING_MIB = 250;

describe('soak: two echo agents, messages both ways', () => {
  it('delivers every message exactly once, each inbox in priority order', async () => {
    const r = await runNode(['bench/soak.mjs', '--messages', '200', '--rate', '40', '--max-rss', String(RSS_CEILING_MIB), '--json'], { timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.failures).toEqual([]);
    expect(result.messagesEachWay).toBe(200);
    // The inboxes did queue up, so the order was really checked.
    expect(result.orderChecks).toBeGreaterThan(0);
    // The RSS ceiling: each agent's process tree (node + the echo CLI) stayed under it throughout.
    expect(result.rssCeilingMiB).toBe(RSS_CEILING_MIB);
    expect(Math.max(result.rssPeakMiB.A, result.rssPeakMiB.B)).toBeLessThan(RSS_CEILING_MIB);
  }, 180_000);
});
