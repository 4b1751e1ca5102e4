// Agent Control: pick an agent, write a message, send it and wait for the answer (like
// `synapse send --wait`). Ctrl/Cmd+Enter sends; Enter while an input method is composing does not.
import { api, el, toast } from './lib.js';

export function updateControlAgents(agents) {
  const select = document.getElementById('control-agent');
  const current = select.value;
  const want = agents.map((a) => a.agent_id);
  if ([...select.options].map((o) => o.value).join('\n') !== want.join('\n')) {
    select.replaceChildren(...agents.map((a) => el('option', { value: a.agent_id, text: `${a.name ?? a.agent_id} (${a.agent_type}, ${a.status})` })));
    select.value = want.includes(current) ? current : (want[0] ?? '');
  }
  document.getElementById('control-hint').textContent = agents.length ? '' : 'No agent is running.';
}

async function send() {
  const target = document.getElementById('control-agent').value;
  const box = document.getElementById('control-message');
  const text = box.value;
  if (!target) return toast('pick an agent first', 'error');
  if (!text.trim()) return;
  box.value = '';
  const answer = el('pre', { class: 'wrap answer pending', text: 'waiting for the answer…' });
  const entry = el(
    'div',
    { class: 'exchange' },
    el('div', { class: 'muted', text: `to ${target} · ${new Date().toLocaleTimeString()}` }),
    el('pre', { class: 'wrap asked', text }),
    answer,
  );
  document.getElementById('control-log').prepend(entry);
  try {
    const r = await api('/api/send', { method: 'POST', body: JSON.stringify({ target, message: text }) });
    answer.textContent = r.answer || `(task ${r.status} without an answer)`;
    answer.className = `wrap answer ${r.status}`;
    entry.dataset.taskId = r.task_id;
  } catch (err) {
    answer.textContent = err.message;
    answer.className = 'wrap answer error';
  }
}

export function setupControl() {
  const box = document.getElementById('control-message');
  box.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.isComposing || e.keyCode === 229) return;
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      void send();
    }
  });
  document.getElementById('control-send').addEventListener('click', () => void send());
}
