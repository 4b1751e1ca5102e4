import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MonitorSource, readSnapshot, type RefreshCause, type Snapshot } from '../../../src/monitor/source.js';
import { cleanupAll, postJson, startHeadless, tempHome, textMessage, waitFor } from '../../support/synapse.js';

/**
 * The monitor's data source apart from its view: each signal on its own. An agent's `/events`
 * stream alone (the registry it watches is another, empty one) and the registry watch alone (no
 * streams) each bring a change in without waiting for the 10 s poll.
 */

const t = tempHome();
const sources: MonitorSource[] = [];
afterEach(async () => {
  for (const s of sources.splice(0)) s.stop();
  await cleanupAll();
});
afterAll(() => t.cleanup());

function record(source: MonitorSource): Array<{ snapshot: Snapshot; cause: RefreshCause }> {
  const reads: Array<{ snapshot: Snapshot; cause: RefreshCause }> = [];
  sources.push(source);
  source.start((snapshot, cause) => reads.push({ snapshot, cause }));
  return reads;
}

describe('the monitor source', () => {
  it("an agent's /events stream alone brings its status change in; the stream closes when the agent goes", async () => {
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '1500' }, args: ['--name', 'streamed'] });
    // The source watches an empty registry directory; its reads come from the real one.
    const elsewhere = { ...t.env, SYNAPSE_REGISTRY_DIR: fs.mkdtempSync(path.join(t.home, 'empty-registry-')) };
    const source = new MonitorSource({ env: elsewhere, pollMs: 60_000, read: () => readSnapshot(t.env) });
    const reads = record(source);
    expect(reads[0]).toMatchObject({ cause: 'start', snapshot: { agents: [{ entry: { agent_id: a.agentId, status: 'READY' } }] } });
    await waitFor(() => source.openStreams === 1, 5_000, 'the stream open');
    const seen = reads.length;
    expect((await postJson(`${a.endpoint}/tasks/send`, textMessage('stream me'))).status).toBe(202);
    const busy = await waitFor(
      () => reads.slice(seen).find((r) => r.snapshot.agents[0]?.entry.status === 'PROCESSING'),
      5_000,
      'PROCESSING through the stream',
    );
    expect(busy.cause).toBe('events');
    expect(busy.snapshot.agents[0]?.entry.current_task_preview).toBe('stream me');
    await a.stop();
    source.refresh('action');
    await waitFor(() => source.openStreams === 0, 10_000, 'the stream closed');
  });

  it('the registry watch alone brings an agent in and takes it out, without a stream', async () => {
    const env = { ...t.env, SYNAPSE_REGISTRY_DIR: fs.mkdtempSync(path.join(t.home, 'registry-')) };
    const followed: string[] = [];
    const source = new MonitorSource({
      env,
      pollMs: 60_000,
      // No stream ever says anything: only the watch can bring the change.
      followEvents: (entry, signal) => {
        followed.push(entry.agent_id);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
      },
    });
    const reads = record(source);
    expect(reads).toEqual([{ cause: 'start', snapshot: { agents: [], problems: [] } }]);
    const now = new Date().toISOString();
    const file = path.join(env.SYNAPSE_REGISTRY_DIR, 'synapse-echo-8199.json');
    const entry = {
      agent_id: 'synapse-echo-8199',
      agent_type: 'echo',
      name: 'watched',
      port: 8199,
      pid: process.pid,
      working_dir: t.home,
      endpoint: 'http://127.0.0.1:8199',
      status: 'READY',
      registered_at: now,
      heartbeat_at: now,
    };
    fs.writeFileSync(file, JSON.stringify(entry));
    const added = await waitFor(() => reads.find((r) => r.snapshot.agents.length === 1), 5_000, 'the entry read');
    expect(added.cause).toBe('registry');
    expect(followed).toEqual(['synapse-echo-8199']);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...entry, status: 'WAITING' }));
    fs.renameSync(`${file}.tmp`, file); // as agents write it: atomically
    await waitFor(() => reads.at(-1)?.snapshot.agents[0]?.entry.status === 'WAITING', 5_000, 'the status change read');
    fs.rmSync(file);
    await waitFor(() => reads.at(-1)?.snapshot.agents.length === 0, 5_000, 'the entry gone');
    expect(source.openStreams).toBe(0);
    expect(source.watching).toBe(true);
  });
});
