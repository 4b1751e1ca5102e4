import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, freeRange, getJson, postJson, ROOT, runCli, runNode, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/**
 * Agents never make V8 load ICU's collator or time zones (~3 MiB and ~1 MiB of RSS, kept for the
 * process's life; guides/agent-runtime.md, "Memory"): no localeCompare, no Date made into text
 * or read in local time, no Intl. Which calls a process made is read from the process itself
 * (test/support/icu-trace.cjs, preloaded through NODE_OPTIONS into every node process started).
 */
const TRACER = path.join(ROOT, 'test/support/icu-trace.cjs');
const t = tempHome();
const pids: number[] = [];
afterEach(async () => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      continue; // already gone
    }
    await waitFor(() => !isAlive(pid), 10_000, `agent ${pid} to stop`);
  }
  await cleanupAll();
});
afterAll(() => t.cleanup());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function traces(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

describe('ICU in Synapse processes', () => {
  it('the trace sees what loads ICU (so an empty trace below means something)', async () => {
    const dir = fs.mkdtempSync(path.join(t.home, 'icu-'));
    const run = await runNode(
      ['-e', "'b'.localeCompare('a'); new Date(0).toUTCString(); new Date(2026, 0, 1); Date.parse('2026-01-01T10:00'); new Intl.NumberFormat()"],
      {
        env: { ...t.env, NODE_OPTIONS: `--require ${TRACER}`, ICU_TRACE_DIR: dir },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const kinds = Object.values(traces(dir))
      .join('')
      .split('\n')
      .filter((l) => l && !l.startsWith(' '));
    expect(kinds).toEqual(['String#localeCompare', 'Date#toUTCString', 'new Date(year, month, …)', 'Date.parse of a local time', 'Intl.NumberFormat']);
  });

  it('three agents from one port range, their CLIs, `synapse list` and `synapse send` never load it, while they answer cards, status, messages and tasks', async () => {
    const dir = fs.mkdtempSync(path.join(t.home, 'icu-'));
    const range = await freeRange(3);
    const env = {
      ...t.env,
      NODE_OPTIONS: `--require ${TRACER}`,
      ICU_TRACE_DIR: dir,
      ECHO_THINK_MS: '0',
      SYNAPSE_PORT_RANGE_ECHO: `${range.first}-${range.last}`,
    };
    const ports: number[] = [];
    const logs: string[] = [];
    // No --port: each claim reads the registry, with the agents before it in it (it sorts them).
    for (let i = 0; i < 3; i++) {
      const started = await runCli(['start', 'echo', '--json'], { env });
      expect(started.code, started.stderr).toBe(0);
      const { pid, port, log_file } = JSON.parse(started.stdout) as { pid: number; port: number; log_file: string };
      pids.push(pid);
      ports.push(port);
      logs.push(log_file);
    }
    ports.sort((a, b) => a - b);
    expect(ports).toEqual([range.first, range.first + 1, range.first + 2]);
    for (const port of ports) {
      const endpoint = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages === true, 15_000, `agent ${port} to take messages`);
      const card = await fetch(`${endpoint}/.well-known/agent.json`);
      expect(card.status).toBe(200);
      // Every answer still has its Date, and the card its Last-Modified, in HTTP's own form.
      expect(card.headers.get('date')).toMatch(
        /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/,
      );
      expect(Math.abs(Date.parse(card.headers.get('date')!) - Date.now())).toBeLessThan(60_000);
      expect(card.headers.get('last-modified')).toMatch(/ GMT$/);
      const again = await fetch(`${endpoint}/.well-known/agent.json`, { headers: { 'if-modified-since': card.headers.get('last-modified')! } });
      expect([200, 304]).toContain(again.status);
    }
    const endpoint = `http://127.0.0.1:${ports[2]}`;
    const sent = await postJson(`${endpoint}/tasks/send`, textMessage('hello'));
    expect(sent.status).toBe(202);
    const task = await waitForTask(endpoint, sent.body.task.id, 15_000);
    expect(task.status).toBe('completed');
    expect(task.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = await runCli(['list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    // Sorted by id, numbers by value.
    expect((JSON.parse(list.stdout) as Array<{ agent_id: string }>).map((a) => a.agent_id)).toEqual(ports.map((p) => `synapse-echo-${p}`));
    const send = await runCli(['send', `synapse-echo-${ports[0]}`, 'hi', '--silent'], { env });
    expect(send.code, send.stderr).toBe(0);
    // The agents' own log lines carry ISO times too.
    const log = fs.readFileSync(logs[2]!, 'utf8');
    expect(log).toMatch(/"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/);

    expect(traces(dir)).toEqual({});
  });
});
