// bench/send: wall time of `synapse send --silent` next to the bare `node -e 0` floor measured in
// the same run, and of `synapse send --wait` round trips against an echo agent with no think time.
// Usage: npm run build && node bench/send.mjs [runs=30]
import { spawnSync } from 'node:child_process';
import { BIN, fmt, percentile, startAgent, tempEnv } from './lib.mjs';

const runs = Number(process.argv[2] ?? 30);
const { env, cleanup } = tempEnv({ ECHO_THINK_MS: '0' });
const agent = await startAgent(env, ['--name', 'bench']);

function time(file, args) {
  const t0 = performance.now();
  const r = spawnSync(file, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

try {
  const floor = [];
  const silent = [];
  const wait = [];
  for (let i = 0; i < runs; i++) {
    floor.push(time(process.execPath, ['-e', '0']).ms);
    silent.push(time(BIN, ['send', 'bench', `hi ${i}`, '--silent']).ms);
    const w = time(BIN, ['send', 'bench', `round trip ${i}`, '--wait']);
    if (!w.stdout.includes(`round trip ${i}`)) throw new Error(`unexpected answer: ${w.stdout}`);
    wait.push(w.ms);
  }
  const f50 = percentile(floor, 50);
  console.log(`bench/send: ${runs} runs each, echo agent with think time 0 (it answers through POST /reply)`);
  console.log(`  node -e 0 (floor)             p50 ${fmt(f50)}  p95 ${fmt(percentile(floor, 95))}`);
  console.log(
    `  synapse send --silent         p50 ${fmt(percentile(silent, 50))}  p95 ${fmt(percentile(silent, 95))}  (floor + ${fmt(percentile(silent, 50) - f50)})`,
  );
  console.log(
    `  synapse send --wait           p50 ${fmt(percentile(wait, 50))}  p95 ${fmt(percentile(wait, 95))}  (floor + ${fmt(percentile(wait, 50) - f50)})`,
  );
} finally {
  await agent.stop();
  cleanup();
}
