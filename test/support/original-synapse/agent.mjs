// The original Python Synapse's HTTP side and task store, for one agent (see ../original-synapse.mjs):
// synapse/a2a_compat.py, synapse/a2a_models.py, synapse/task_store.py.

import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { originalEntry, pyTime, pythonDumps, registryDirOf, writeAtomic } from './registry.mjs';

const VERSION = '0.35.0';
/** synapse/output_parser.py SENT_MESSAGE_COMPARE_LEN */
const SENT_MESSAGE_COMPARE_LEN = 50;
/** AgentRegistry._MAX_TASK_PREVIEW_LEN */
const MAX_TASK_PREVIEW_LEN = 30;

/** synapse/utils.py get_iso_timestamp: naive UTC isoformat with microseconds, plus 'Z'. */
function isoTimestamp() {
  return `${new Date().toISOString().slice(0, 23)}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}Z`;
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

export class OriginalAgent {
  /** `emit`: where it reports each request it gets and each command it has done. */
  constructor(o, emit) {
    this.o = o;
    this.emit = emit;
    this.agentId = `synapse-${o.agentType}-${o.port}`;
    this.dir = registryDirOf(o.env ?? process.env);
    this.file = path.join(this.dir, `${this.agentId}.json`);
    /** task_store: insertion-ordered, like the original's dict */
    this.tasks = new Map();
    /** Its controller's status (what it mirrors into the entry). */
    this.status = 'PROCESSING';
    /** What its PTY shows, for GET /status `context`: the stand-in has no CLI, so the lines written into it. */
    this.context = '';
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
    this.status = status;
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
    this.context = `${this.context}A2A: ${text}\n`.slice(-2000);
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

  /** GET /status (server.py get_status, status.py evaluate_readiness): the controller's status and the PTY's last 2000 characters. */
  statusBody() {
    const lifecycle = ['READY', 'DONE'].includes(this.status)
      ? 'IDLE'
      : ['WAITING', 'WAITING_FOR_INPUT'].includes(this.status)
        ? 'WAITING_INPUT'
        : this.status === 'SHUTTING_DOWN'
          ? 'FAILED'
          : 'RUNNING';
    const reason = { IDLE: 'ready', WAITING_INPUT: 'waiting_for_input', FAILED: 'agent_failed', RUNNING: 'agent_running' }[lifecycle];
    return { status: this.status, lifecycle, ready: lifecycle === 'IDLE', readiness_reason: reason, context: this.context.slice(-2000) };
  }

  /** FastAPI's routing: GET /tasks/send is GET /tasks/{task_id} ("Task not found"); a known path with another method is 405. */
  route(method, pathname, query, body) {
    const notAllowed = [405, { detail: 'Method Not Allowed' }];
    if (pathname === '/.well-known/agent.json') return method === 'GET' ? [200, agentCard(this.o, this.agentId)] : notAllowed;
    if (pathname === '/status') return method === 'GET' ? [200, this.statusBody()] : notAllowed;
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
        this.emit({ event: 'request', method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, raw });
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
    if (c.cmd === 'complete') this.emit({ event: 'done', id: c.id, ok: this.complete(c.task_id, c.answer, c.form) });
    else if (c.cmd === 'status') {
      this.setStatus(c.status);
      this.emit({ event: 'done', id: c.id, ok: true });
    } else this.emit({ event: 'done', id: c.id, ok: false });
  }
}
