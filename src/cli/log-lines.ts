/**
 * An agent logs JSON lines (pino: `{"level":"info","time":"…","agent_id":"…","msg":"…"}`);
 * `synapse logs` shows each as `time agent_id msg` (warnings and errors say so). Other lines in
 * a log file (a crash's stack trace, what the CLI printed before the agent took over) pass as
 * they are.
 */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return line; // a line that only looks like JSON is shown as written
  }
  if (typeof rec !== 'object' || rec === null) return line;
  const r = rec as Record<string, unknown>;
  if (typeof r.msg !== 'string' || typeof r.time !== 'string') return line;
  const level = typeof r.level === 'string' && r.level !== 'info' ? `${r.level.toUpperCase()} ` : '';
  const agent = typeof r.agent_id === 'string' ? `${r.agent_id} ` : '';
  return `${r.time} ${agent}${level}${r.msg}`;
}

/** A piece of a growing log file (`synapse logs -f`), formatted line by line. */
export function formatLogChunk(chunk: string): string {
  return chunk
    .split('\n')
    .map((l, i, all) => (i === all.length - 1 ? l : formatLogLine(l)))
    .join('\n');
}
