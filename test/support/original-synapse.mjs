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
//   await agent.stop()                  SIGTERM: unregisters as the original's atexit does
//   await agent.kill()                  SIGKILL: leaves its registry file behind
//
// Routes (with the original's shapes): GET /.well-known/agent.json (its AgentCard),
// POST /tasks/send and /tasks/send-priority?priority=N (200 {task}; 400 without text; 404 for an
// unknown in_reply_to; 409 with Retry-After while a task is working and priority < 5; 422 for a
// body its pydantic model refuses, with an abbreviated `detail`), GET /tasks/{id} (the Task
// itself, 404 {detail}), GET /tasks (an array), GET /tasks/{id}/subscribe (its SSE stream: unnamed
// `data:` events of type status/done). Anything else: 404 {"detail":"Not Found"}, as FastAPI.
// A Task is {id, status, message, artifacts, error, created_at, updated_at, context_id,
// metadata}, `status` a string, an artifact {type, data}.
//
// Run as a program it is the agent (argument: one JSON object of options); it reports on
// stdout, one JSON line per event, and takes commands on stdin, one JSON line each.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '0.35.0';
/** synapse/output_parser.py SENT_MESSAGE_COMPARE_LEN */
const SENT_MESSAGE_COMPARE_LEN = 50;
/** AgentRegistry._MAX_TASK_PREVIEW_LEN */
const MAX_TASK_PREVIEW_LEN = 30;

/** synapse/paths.py get_registry_dir */
export function registryDirOf(env) {
  return env.SYNAPSE_REGISTRY_DIR || path.join(env.HOME || os.homedir(), '.a2a', 'registry');
}

/** Python's json.dump (ensure_ascii=True, indent=2): what the original's registry files look like. */
export function pythonJson(value) {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's json.dumps with its default separators (', ', ': ') and ensure_ascii: the SSE `data:` lines. */
export function pythonDumps(value) {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  }
  return pythonJson(value);
}

/** time.time() */
function pyTime() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/** synapse/utils.py get_iso_timestamp: naive UTC isoformat with microseconds, plus 'Z'. */
function isoTimestamp() {
  return `${new Date().toISOString().slice(0, 23)}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}Z`;
}

/**
 * The registry entry as AgentRegistry.register writes it (same keys, same order, epoch-second
 * floats, no `name`/`role`/`skill_set` unless given, `endpoint` on localhost, a `uds_path`).
 */
export function originalEntry({ agentType, port, pid, workingDir, name, role, skillSet, status = 'PROCESSING', udsDir, now = pyTime() }) {
  const agentId = `synapse-${agentType}-${port}`;
  const data = {
    agent_id: agentId,
    agent_type: agentType,
    port,
    status,
    status_updated_at: now,
    last_status_change_at: now,
    registered_at: now,
    pid,
    working_dir: workingDir,
    endpoint: `http://localhost:${port}`,
    uds_path: path.join(udsDir || '/tmp/synapse-a2a', `${agentId}.sock`),
  };
  if (name) data.name = name;
  if (skillSet) data.skill_set = skillSet;
  if (role) data.role = role;
  data.renderer_available = true;
  return data;
}

// ---------------------------------------------------------------------------------------------
// The agent process
// ---------------------------------------------------------------------------------------------

function emit(event) {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** _write_json_atomic / _atomic_update: mkstemp(prefix=".<id>.", suffix=".tmp") + fsync + os.replace. */
function writeAtomic(dir, agentId, data) {
  const tmp = path.join(dir, `.${agentId}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  fs.writeSync(fd, pythonJson(data));
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, path.join(dir, `${agentId}.json`));
}

function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
}

/** repr() of the profile's submit sequence, as the card shows it. */
function pyRepr(s) {
  return `'${s.replace(/\\/g, '\\\\').replace(/\r/g, '\\r').replace(/\n/g, '\\n')}'`;
}

function agentCard(o, agentId) {
  return {
    name: `Synapse ${capitalize(o.agentType)}`,
    description: `PTY-wrapped ${o.agentType} CLI agent with A2A communication`,
    url: `http://localhost:${o.port}`,
    version: VERSION,
    capabilities: { streaming: true, pushNotifications: false, multiTurn: true },
    skills: [
      { id: 'chat', name: 'Chat', description: 'Send messages to the CLI agent', parameters: null },
      {
        id: 'interrupt',
        name: 'Interrupt',
        description: 'Interrupt current processing (Synapse extension)',
        parameters: { priority: { type: 'integer', description: 'Priority level (5 for interrupt)', default: 3 } },
      },
    ],
    securitySchemes: {},
    extensions: {
      synapse: {
        agent_id: agentId,
        pty_wrapped: true,
        priority_interrupt: true,
        at_agent_syntax: true,
        submit_sequence: pyRepr(o.submitSequence ?? '\r'),
        addressable_as: [`@${agentId}`, `@${o.agentType}`],
      },
    },
  };
}

/** pydantic's Message model: role user|agent, parts of TextPart | FilePart | DataPart. Null when refused. */
function parseMessage(m) {
  if (typeof m !== 'object' || m === null || !Array.isArray(m.parts)) return null;
  const role = m.role ?? 'user';
  if (role !== 'user' && role !== 'agent') return null;
  const parts = [];
  for (const p of m.parts) {
    if (typeof p !== 'object' || p === null) return null;
    const type = p.type ?? 'text';
    if (type === 'text' && typeof p.text === 'string') parts.push({ type: 'text', text: p.text });
    else if (type === 'file' && typeof p.file === 'object' && p.file !== null) parts.push({ type: 'file', file: p.file });
    else if (type === 'data' && typeof p.data === 'object' && p.data !== null) parts.push({ type: 'data', data: p.data });
    else return null;
  }
  return { role, parts };
}

function unprocessable(loc, msg, input) {
  return [422, { detail: [{ type: 'value_error', loc, msg, input }] }];
}

class OriginalAgent {
  constructor(o) {
    this.o = o;
    this.agentId = `synapse-${o.agentType}-${o.port}`;
    this.dir = registryDirOf(o.env ?? process.env);
    this.file = path.join(this.dir, `${this.agentId}.json`);
    /** task_store: insertion-ordered, like the original's dict */
    this.tasks = new Map();
    this.entry = originalEntry({ ...o, pid: process.pid, workingDir: o.workingDir ?? process.cwd(), status: 'PROCESSING' });
  }

  register() {
    fs.mkdirSync(this.dir, { recursive: true });
    writeAtomic(this.dir, this.agentId, this.entry);
  }

  unregister() {
    fs.rmSync(this.file, { force: true });
  }

  /** AgentRegistry._atomic_update: read the file as it is now (a peer may have added fields), change, write. */
  update(change) {
    let data;
    try {
      data = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      return; // gone: the original's _atomic_update returns False
    }
    change(data);
    writeAtomic(this.dir, this.agentId, data);
  }

  /** update_status, then the input_required_tasks mirror its status-change callback keeps. */
  setStatus(status) {
    this.update((d) => {
      const now = pyTime();
      if (d.status !== status) d.last_status_change_at = now;
      d.status = status;
      d.status_updated_at = now;
      d.input_required_tasks = [];
    });
  }

  touch(task) {
    task.updated_at = isoTimestamp();
  }

  /** _send_task_message */
  send(body, priority) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return unprocessable(['body'], 'Input should be a valid dictionary', body);
    if (!('message' in body)) return [422, { detail: [{ type: 'missing', loc: ['body', 'message'], msg: 'Field required', input: body }] }];
    const message = parseMessage(body.message);
    if (!message) return unprocessable(['body', 'message'], 'Input should be a valid Message', body.message);
    const text = message.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    if (!text) return [400, { detail: 'No text content in message' }];
    const metadata = typeof body.metadata === 'object' && body.metadata !== null ? body.metadata : {};
    const contextId = typeof body.context_id === 'string' ? body.context_id : null;

    if (metadata.in_reply_to) return this.reply(String(metadata.in_reply_to), text, metadata);

    const active = [...this.tasks.values()].find((t) => t.status === 'working');
    if (active && priority < 5) {
      return [409, { detail: `Agent already has a working task (${active.id.slice(0, 8)}). Retry after it completes.` }, { 'retry-after': '2' }];
    }
    const now = isoTimestamp();
    const task = {
      id: randomUUID(),
      status: 'submitted',
      message,
      artifacts: [],
      error: null,
      created_at: now,
      updated_at: now,
      context_id: contextId,
      metadata: { ...metadata, _context_start: 0, _sent_message: text.slice(0, SENT_MESSAGE_COMPARE_LEN) },
    };
    this.tasks.set(task.id, task);
    task.status = 'working';
    this.touch(task);
    const preview = text.length > MAX_TASK_PREVIEW_LEN ? `${text.slice(0, MAX_TASK_PREVIEW_LEN - 3)}...` : text;
    this.update((d) => {
      d.current_task_preview = preview;
      d.task_received_at = pyTime();
    });
    return [200, { task }];
  }

  /** The in_reply_to branch of _send_task_message: the answer to a task of ours. */
  reply(prefix, text, metadata) {
    const matches = [...this.tasks.values()].filter((t) => t.id.toLowerCase().startsWith(prefix.toLowerCase()));
    if (matches.length > 1) return [400, { detail: `Ambiguous task ID prefix '${prefix}': matches ${matches.length} tasks` }];
    const task = this.tasks.get(prefix.toLowerCase()) ?? matches[0];
    if (!task) return [404, { detail: 'Task not found' }];
    task.artifacts.push({ type: 'text', data: { content: text } });
    task.status = metadata.reply_status === 'failed' ? 'failed' : 'completed';
    this.touch(task);
    this.clearPreview();
    return [200, { task }];
  }

  clearPreview() {
    this.update((d) => {
      delete d.current_task_preview;
      delete d.task_received_at;
    });
  }

  /**
   * What the original does when its CLI is idle again (_finalize_working_task): completed, the
   * reply as a text artifact — `data` the text itself, or {content} as `synapse reply` records it.
   */
  complete(taskId, answer, form = 'text') {
    const task = this.tasks.get(taskId);
    if (!task) return false;
    task.status = 'completed';
    task.artifacts.push({ type: 'text', data: form === 'content' ? { content: answer } : answer });
    this.touch(task);
    this.clearPreview();
    return true;
  }

  /** GET /tasks/{id}/subscribe: polls the task every 100 ms, as the original's event_generator. */
  subscribe(res, task) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    let last = task.status;
    const tick = () => {
      const t = this.tasks.get(task.id);
      if (!t) {
        res.end(`data: ${pythonDumps({ type: 'error', message: 'Task not found' })}\n\n`);
        return;
      }
      if (t.status !== last) {
        last = t.status;
        res.write(`data: ${pythonDumps({ type: 'status', status: t.status })}\n\n`);
      }
      if (['completed', 'failed', 'canceled'].includes(t.status)) {
        const done = { type: 'done', status: t.status, artifacts: t.artifacts.map((a) => ({ type: a.type, data: a.data })) };
        if (t.error) done.error = { code: t.error.code, message: t.error.message };
        res.end(`data: ${pythonDumps(done)}\n\n`);
        return;
      }
      timer = setTimeout(tick, 100);
    };
    let timer = setTimeout(tick, 0);
    res.on('close', () => clearTimeout(timer));
  }

  /** FastAPI's routing: GET /tasks/send is GET /tasks/{task_id} ("Task not found"); a known path with another method is 405. */
  route(method, pathname, query, body) {
    const notAllowed = [405, { detail: 'Method Not Allowed' }];
    if (pathname === '/.well-known/agent.json') return method === 'GET' ? [200, agentCard(this.o, this.agentId)] : notAllowed;
    if (pathname === '/tasks/send' && method === 'POST') return this.send(body, 3);
    if (pathname === '/tasks/send-priority' && method === 'POST') {
      const priority = query.get('priority') === null ? 3 : Number(query.get('priority'));
      if (!Number.isInteger(priority)) return unprocessable(['query', 'priority'], 'Input should be a valid integer', query.get('priority'));
      return this.send(body, priority);
    }
    if (pathname === '/tasks') return method === 'GET' ? [200, [...this.tasks.values()]] : notAllowed;
    const taskPath = /^\/tasks\/([^/]+)$/.exec(pathname);
    if (taskPath) {
      if (method !== 'GET') return notAllowed;
      const task = this.tasks.get(decodeURIComponent(taskPath[1]));
      return task ? [200, task] : [404, { detail: 'Task not found' }];
    }
    return [404, { detail: 'Not Found' }];
  }

  listen() {
    const server = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const raw = Buffer.concat(chunks).toString('utf8');
        let body = null;
        let invalidJson = false;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          invalidJson = true;
        }
        emit({ event: 'request', method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, raw });
        const sub = /^\/tasks\/([^/]+)\/subscribe$/.exec(url.pathname);
        if (sub && req.method === 'GET') {
          const task = this.tasks.get(decodeURIComponent(sub[1]));
          if (task) return this.subscribe(res, task);
          return this.answer(res, 404, { detail: 'Task not found' });
        }
        const [status, payload, headers] = invalidJson
          ? [422, { detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {} }] }]
          : this.route(req.method, url.pathname, url.searchParams, body);
        this.answer(res, status, payload, headers);
      });
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // The original binds 0.0.0.0; a test stays on loopback.
      server.listen(this.o.port, '127.0.0.1', () => resolve(server));
    });
  }

  answer(res, status, payload, headers = {}) {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  command(c) {
    if (c.cmd === 'complete') emit({ event: 'done', id: c.id, ok: this.complete(c.task_id, c.answer, c.form) });
    else if (c.cmd === 'status') {
      this.setStatus(c.status);
      emit({ event: 'done', id: c.id, ok: true });
    } else emit({ event: 'done', id: c.id, ok: false });
  }
}

async function main(options) {
  const agent = new OriginalAgent({ ...options, env: process.env });
  await agent.listen();
  // It registers as PROCESSING (the port is allocated before the CLI runs), then its CLI is ready.
  agent.register();
  agent.setStatus(options.status ?? 'READY');
  // atexit: the original unregisters on a normal exit; SIGTERM is its `synapse stop`.
  process.on('SIGTERM', () => {
    agent.unregister();
    process.exit(0);
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
