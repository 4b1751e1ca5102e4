import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { createElement as h, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ListColumn } from '../config/keys.js';
import { monitorCells, statusColour, type AgentRow } from './columns.js';
import { agentLabel, handleInput, KEY_HELP, type Effect } from './keys.js';
import { fitCell, fitColumns, GAP } from './layout.js';
import { initialState, rowWindow, selectedIndex, visibleAgents, withAgents, withMessage, type MonitorState } from './model.js';
import type { MonitorSource, Snapshot } from './source.js';

/** What the monitor's keys do outside it: `synapse jump` and `synapse kill`, each answering with one line. */
export interface MonitorActions {
  jump(agent: AgentRow): Promise<string>;
  kill(agent: AgentRow): Promise<string>;
}

export interface MonitorAppProps {
  source: MonitorSource;
  columns: readonly ListColumn[];
  actions: MonitorActions;
  /** Shown as `~` in WORKING_DIR. */
  home: string | undefined;
}

/** The number column before the others: rows 1-9 can be selected by their digit. */
const NUMBER_WIDTH = 2;
/** Lines around the table: title, message, footer. */
const CHROME_LINES = 3;

const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = useCallback(() => ({ columns: stdout.columns || 120, rows: stdout.rows || 30 }), [stdout]);
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, read]);
  return size;
}

/** The title's warning when other hosts' agents are missing: the PostgreSQL store could not be read. */
function remoteWarning(error: string | null): ReactNode {
  if (!error) return null;
  return h(Text, { color: 'yellow' }, ` · WARNING: other hosts not shown, the store cannot be reached (${error.replace(/[\p{Cc}\p{Cf}]/gu, ' ')})`);
}

function titleLine(state: MonitorState, problems: number, remoteError: string | null, now: number, width: number): ReactNode {
  const shown = visibleAgents(state).length;
  const count = `${state.agents.length} agent${state.agents.length === 1 ? '' : 's'}`;
  const filter = state.filter || state.typingFilter ? ` · filter "${state.filter}" (${shown} shown)` : '';
  const skipped = problems ? ` · ${problems} registry file${problems === 1 ? '' : 's'} skipped` : '';
  const left = `Synapse agents · ${count}${filter}${skipped}`;
  return h(
    Box,
    { width, justifyContent: 'space-between' },
    h(Text, { bold: true, wrap: 'truncate-end' }, left, remoteWarning(remoteError)),
    h(Text, { dimColor: true }, ` ${clock(now)}`),
  );
}

function tableRow(key: string, label: string, cells: string[], columns: readonly ListColumn[], opts: { selected?: boolean; header?: boolean }): ReactNode {
  const parts: ReactNode[] = [h(Text, { key: '#' }, `${label.padEnd(NUMBER_WIDTH)}${' '.repeat(GAP)}`)];
  cells.forEach((cell, i) => {
    const sep = i < cells.length - 1 ? ' '.repeat(GAP) : '';
    const colour = !opts.header && columns[i] === 'STATUS' ? statusColour(cell.trim()) : undefined;
    parts.push(h(Text, { key: String(i), ...(colour ? { color: colour, bold: true } : {}) }, cell), sep ? h(Text, { key: `s${i}` }, sep) : null);
  });
  return h(Text, { key, wrap: 'truncate-end', inverse: opts.selected === true, bold: opts.header === true, dimColor: opts.header === true }, ...parts);
}

function tableLines(state: MonitorState, columns: readonly ListColumn[], now: number, home: string | undefined, width: number, capacity: number): ReactNode[] {
  const rows = visibleAgents(state);
  if (!state.loaded) return [h(Text, { key: 'empty', dimColor: true }, 'reading the registry…')];
  if (rows.length === 0) {
    const why = state.agents.length
      ? `No agent matches "${state.filter}" (ESC clears the filter).`
      : 'No agents running. Start one with `synapse start echo` or `synapse claude`; they appear here as they register.';
    return [h(Text, { key: 'empty', dimColor: true, wrap: 'wrap' }, why)];
  }
  const cells = rows.map((r) => monitorCells(r, now, home));
  const widths = fitColumns(columns, cells, width - NUMBER_WIDTH - GAP);
  const selected = selectedIndex(state);
  // `capacity` lines: the header, the rows, and a line saying which rows when they do not all fit.
  const fitting = rows.length <= capacity - 1 ? capacity - 1 : capacity - 2;
  const { start, end } = rowWindow(rows.length, selected, fitting);
  const header = tableRow(
    'header',
    '#',
    columns.map((c, i) => fitCell(c, widths[i]!)),
    columns,
    { header: true },
  );
  const body = cells.slice(start, end).map((row, k) => {
    const i = start + k;
    return tableRow(
      rows[i]!.entry.agent_id,
      i < 9 ? String(i + 1) : '',
      columns.map((c, j) => fitCell(row[c], widths[j]!, c)),
      columns,
      { selected: i === selected },
    );
  });
  const more = rows.length > end - start ? [h(Text, { key: 'more', dimColor: true }, `rows ${start + 1}-${end} of ${rows.length} (↑/↓ scroll)`)] : [];
  return [header, ...body, ...more];
}

function footerLine(state: MonitorState): ReactNode {
  const confirm = state.confirmKillId !== null ? state.agents.find((r) => r.entry.agent_id === state.confirmKillId) : undefined;
  if (confirm) return h(Text, { color: 'red', bold: true }, `Kill ${agentLabel(confirm)}? [y/n]`);
  if (state.typingFilter)
    return h(Text, null, h(Text, { color: 'cyan' }, 'filter (type, name or directory): '), `${state.filter}▏  Enter keeps it, ESC clears it`);
  return h(Text, { dimColor: true, wrap: 'truncate-end' }, KEY_HELP);
}

/**
 * The live monitor, full screen: a title with the count and the clock, the table (STATUS in its
 * colour, the selected row inverted), a line of feedback and the keys. It re-renders on every read
 * of the source and once a second (CURRENT's elapsed time, the clock).
 */
export function MonitorApp({ source, columns, actions, home }: MonitorAppProps): ReactNode {
  const { exit } = useApp();
  const { columns: width, rows: height } = useTerminalSize();
  const [state, setState] = useState<MonitorState>(initialState);
  const [problems, setProblems] = useState(0);
  const [remoteError, setRemoteError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const current = useRef(state);
  const update = useCallback((next: (s: MonitorState) => MonitorState) => {
    current.current = next(current.current);
    setState(current.current);
  }, []);

  useEffect(() => {
    source.start((snapshot: Snapshot) => {
      setProblems(snapshot.problems.length);
      setRemoteError(snapshot.remoteError ?? null);
      setNow(Date.now());
      update((s) => withAgents(s, snapshot.agents));
    });
    return () => source.stop();
  }, [source, update]);

  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);

  const perform = useCallback(
    (effect: Effect) => {
      if (effect.kind === 'quit') return exit();
      const said = (text: string) => update((s) => withMessage(s, text.replace(/[\p{Cc}\p{Cf}]/gu, ' ').trim()));
      const action = effect.kind === 'jump' ? actions.jump(effect.agent) : actions.kill(effect.agent);
      action.then(said, (err: unknown) => said(`${effect.kind} failed: ${(err as Error).message}`)).finally(() => source.refresh('action'));
    },
    [actions, exit, source, update],
  );

  useInput((input, key) => {
    const result = handleInput(current.current, {
      input,
      up: key.upArrow,
      down: key.downArrow,
      enter: key.return,
      escape: key.escape,
      backspace: key.backspace || key.delete,
      ctrlC: key.ctrl && input === 'c',
    });
    update(() => result.state);
    for (const effect of result.effects) perform(effect);
  });

  // One line short of the screen: a frame as tall as the terminal makes Ink clear it on every render.
  const frameHeight = Math.max(CHROME_LINES + 3, height - 1);
  return h(
    Box,
    { flexDirection: 'column', width, height: frameHeight },
    titleLine(state, problems, remoteError, now, width),
    h(Box, { flexDirection: 'column', flexGrow: 1 }, ...tableLines(state, columns, now, home, width, frameHeight - CHROME_LINES)),
    h(Text, { wrap: 'truncate-end', color: 'cyan' }, state.message ?? ' '),
    footerLine(state),
  );
}
