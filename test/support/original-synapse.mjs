// A stand-in for one agent of the original Python Synapse (0.35): a real process that registers
// in the registry exactly as the original's `AgentRegistry.register` does and answers, over
// HTTP, the routes a peer uses exactly as the original's FastAPI app does (synapse/a2a_compat.py,
// synapse/a2a_models.py, synapse/task_store.py). CI cannot install the original; this lets the
// tests prove that both implementations share one registry and talk to each other.
//
//   const agent = await startOriginalSynapse({ env, agentType: 'claude', port, workingDir });
//   agent.agentId / agent.endpoint ('http://localhost:PORT', as the original writes) / agent.pid
//   agent.requests                      every request: {method, path, query, headers, body, raw}
//   await agent.waitForRequest((r) => r.path === '/tasks/send-priority')
//   await agent.complete(taskId, 'the answer')      as the original does when its CLI is idle again
//   await agent.setStatus('PROCESSING')             as its controller's status changes
//   await agent.stop()                  SIGTERM: unregisters as the original's shutdown does
//   await agent.kill()                  SIGKILL: leaves its registry file behind
//
// Routes (with the original's shapes): GET /.well-known/agent.json (its AgentCard),
// POST /tasks/send and /tasks/send-priority?priority=N (200 {task}; 400 without text; 404 for an
// unknown in_reply_to; 409 with Retry-After while a task is working and priority < 5; 422 for a
// body its pydantic model refuses, with an abbreviated `detail`), GET /tasks/{id} (the Task
// itself, 404 {detail}), GET /tasks (an array), GET /tasks/{id}/subscribe (its SSE stream: unnamed
// `data:` events of type status/done), GET /status ({status, lifecycle, ready, readiness_reason,
// context}). It has no POST /shutdown: SIGTERM stops it, as the original's `synapse stop` does.
// Anything else: 404 {"detail":"Not Found"}, as FastAPI.
// A Task is {id, status, message, artifacts, error, created_at, updated_at, context_id,
// metadata}, `status` a string, an artifact {type, data}.
//
// Run as a program it is the agent (argument: one JSON object of options); it reports on
// stdout, one JSON line per event, and takes commands on stdin, one JSON line each.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OriginalAgent } from './original-synapse/agent.mjs';

export { originalEntry, pythonDumps, pythonJson, registryDirOf } from './original-synapse/registry.mjs';

// ---------------------------------------------------------------------------------------------
// The agent process
// ---------------------------------------------------------------------------------------------

function emit(event) {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

async function main(options) {
  const agent = new OriginalAgent({ ...options, env: process.env }, emit);
  await agent.listen();
  // It registers as PROCESSING (the port is allocated before the CLI runs), then its CLI is ready.
  agent.register();
  agent.setStatus(options.status ?? 'READY');
  // SIGTERM is its `synapse stop`: uvicorn's shutdown stops the CLI, then unregisters. That can
  // take long (`sigtermDelayMs`): the real 0.35 with its dummy CLI took 33 s, its controller
  // waiting up to 30 s for the CLI's process group, in which the exited but unreaped CLI counts.
  process.on('SIGTERM', () => {
    setTimeout(() => {
      agent.unregister();
      process.exit(0);
    }, options.sigtermDelayMs ?? 0);
  });
  let buf = '';
  process.stdin.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) agent.command(JSON.parse(line));
    }
  });
  emit({ event: 'ready', agent_id: agent.agentId, port: options.port, pid: process.pid, file: agent.file });
}

// ---------------------------------------------------------------------------------------------
// The test's handle
// ---------------------------------------------------------------------------------------------

/** Starts the stand-in as its own process; resolves once it is registered and listening. */
export function startOriginalSynapse(options) {
  const { env = process.env, ...rest } = options;
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(rest)], {
    env,
    cwd: rest.workingDir ?? process.cwd(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const requests = [];
  const waiters = new Set();
  const pending = new Map();
  let nextId = 0;
  let buf = '';
  const closed = new Promise((r) => child.once('close', r));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    void closed.then(() => reject(new Error('the original Synapse stand-in exited before it was ready (its stderr is above)')));
    child.stdout.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const e = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (e.event === 'request') {
          requests.push(e);
          for (const w of waiters) w();
        } else if (e.event === 'done') pending.get(e.id)?.(e.ok);
        else if (e.event === 'ready') resolve(handle(e));
      }
    });
  });

  function command(c) {
    const id = ++nextId;
    return new Promise((resolve) => {
      pending.set(id, (ok) => {
        pending.delete(id);
        resolve(ok);
      });
      child.stdin.write(`${JSON.stringify({ ...c, id })}\n`);
    });
  }

  function handle(ready) {
    return {
      agentId: ready.agent_id,
      port: ready.port,
      pid: ready.pid,
      file: ready.file,
      endpoint: `http://localhost:${ready.port}`,
      child,
      requests,
      waitForRequest(pred, timeoutMs = 10_000) {
        const hit = requests.find(pred);
        if (hit) return Promise.resolve(hit);
        return new Promise((res, rej) => {
          const check = () => {
            const r = requests.find(pred);
            if (!r) return;
            clearTimeout(timer);
            waiters.delete(check);
            res(r);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            rej(new Error(`no matching request within ${timeoutMs} ms; got: ${requests.map((r) => `${r.method} ${r.path}`).join(', ')}`));
          }, timeoutMs);
          waiters.add(check);
        });
      },
      complete: (taskId, answer, form = 'text') => command({ cmd: 'complete', task_id: taskId, answer, form }),
      setStatus: (status) => command({ cmd: 'status', status }),
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await closed;
      },
      kill: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await closed;
      },
    };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(JSON.parse(process.argv[2] ?? '{}')).catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}
