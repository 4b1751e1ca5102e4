// bench/delivery: how fast a message gets into the CLI, and the whole round trip, against the
// built-in echo agent with zero think time; plus start-up time and idle memory of one agent.
// Usage: npm run build && node bench/delivery.mjs [rounds=200]
import { fmt, percentile, startAgent, tempEnv, treeMemory } from './lib.mjs';

const rounds = Number(process.argv[2] ?? 200);
const { env, cleanup } = tempEnv({ ECHO_THINK_MS: '0' });
const starts = [];
for (let i = 0; i < 5; i++) {
  const a = await startAgent(env);
  starts.push({ card: a.cardMs, ready: a.readyMs });
  await a.stop();
}
const agent = await startAgent(env);
try {
  const accepted = [];
  const seen = [];
  const roundTrip = [];
  const body = (i) => JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: `bench message ${i}` }] } });
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const res = await fetch(`${agent.endpoint}/tasks/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
    const { task } = await res.json();
    let t;
    for (;;) {
      t = await (await fetch(`${agent.endpoint}/tasks/${task.id}`)).json();
      if (['completed', 'failed', 'canceled'].includes(t.status)) break;
      await new Promise((r) => setImmediate(r));
    }
    roundTrip.push(performance.now() - t0);
    if (t.status !== 'completed') throw new Error(`task ${t.id} ended ${t.status}`);
    // accepted (created) -> typed into the PTY, from the agent's own timestamps; and -> delivered
    // (the text seen on the CLI's screen after the submit key, i.e. including the submit delay)
    accepted.push(Date.parse(t.metadata.pty_written_at) - Date.parse(t.created_at));
    seen.push(Date.parse(t.receipt.delivered_at) - Date.parse(t.created_at));
  }
  await new Promise((r) => setTimeout(r, 3000)); // let it go idle
  const mem = treeMemory(agent.child.pid);
  console.log(`bench/delivery: echo agent, think time 0, ${rounds} sequential messages`);
  console.log(
    `  launch -> agent card served      p50 ${fmt(
      percentile(
        starts.map((s) => s.card),
        50,
      ),
    )}  (5 launches)`,
  );
  console.log(
    `  launch -> accepting messages     p50 ${fmt(
      percentile(
        starts.map((s) => s.ready),
        50,
      ),
    )}  (incl. start-up instruction turn)`,
  );
  console.log(
    `  accepted -> written to the PTY   p50 ${fmt(percentile(accepted, 50))}  p95 ${fmt(percentile(accepted, 95))}  (ms clock; submit delay excluded)`,
  );
  console.log(
    `  accepted -> seen on the screen   p50 ${fmt(percentile(seen, 50))}  p95 ${fmt(percentile(seen, 95))}  (receipt delivered; includes the 5 ms submit delay)`,
  );
  console.log(`  /tasks/send -> completed         p50 ${fmt(percentile(roundTrip, 50))}  p95 ${fmt(percentile(roundTrip, 95))}`);
  console.log(`  idle memory of the process tree  RSS ${mem.rssMiB.toFixed(1)} MiB  PSS ${mem.pssMiB.toFixed(1)} MiB`);
  for (const p of mem.per) console.log(`    pid ${p.pid}  RSS ${p.rssMiB.toFixed(1)} MiB  PSS ${p.pssMiB.toFixed(1)} MiB  ${p.cmd}`);
} finally {
  await agent.stop();
  cleanup();
}
