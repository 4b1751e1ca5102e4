import type { UsageLogKind } from './usage-records.js';

/** Agent statuses, in the order a CLI usually moves through them. */
export type AgentStatus = 'STARTING' | 'READY' | 'PROCESSING' | 'WAITING' | 'DONE' | 'EXITED';

export type ProfileId = 'claude' | 'gemini' | 'codex' | 'opencode' | 'copilot' | 'echo';

/** What the status rules see: the rendered screen, never raw bytes. */
export interface ScreenView {
  /** Visible viewport rows, top to bottom, trailing spaces trimmed. */
  lines: string[];
  /** The same rows joined with '\n'. */
  text: string;
}

/**
 * A rule matches when every one of its patterns is found on some considered line; a status
 * matches when any of its rules does (an OR of ANDs).
 */
export interface ScreenRule {
  patterns: RegExp[];
  /** A structural check on the considered lines (e.g. "a prompt row between two rules"). */
  match?: (lines: string[]) => boolean;
  /** Only look at the last N rows of the viewport (e.g. the footer). Default: all rows. */
  lastRows?: number;
}

interface SubmitSpec {
  /** Wrap the message in ESC[200~ … ESC[201~ so embedded newlines do not submit early. */
  bracketedPaste: boolean;
  /** Written as its own write after `delayMs`. */
  key: string;
  /** Wait between the text and the submit key (the CLI needs time to take the paste). */
  delayMs: number;
  /**
   * How long after the submit key the message must show on screen (or the CLI start working)
   * before the submit key is sent once more; after a second window the receipt says
   * `delivery_unconfirmed`.
   */
  confirmMs: number;
  /** After the very first READY, wait this long before the first input (Gemini drops earlier input). */
  firstInputDelayMs?: number;
}

/**
 * How to interrupt a turn. `settleMs`: how long after it the CLI is still winding the turn down
 * and must not be typed into (Copilot CLI: Working goes, comes back, and `Operation cancelled`
 * shows ~250 ms later; input pasted before that is aborted with the old turn and left in the box).
 *
 * `retryMs`: if the CLI still looks busy this long after the interrupt, press it once more. Only
 * for CLIs where a second press is harmless (never Copilot's Ctrl-C: twice arms "exit").
 */
type InterruptSpec = ({ kind: 'key'; key: string } | { kind: 'signal'; signal: NodeJS.Signals }) & { settleMs?: number; retryMs?: number };

/**
 * How to read and answer the CLI's plan-approval screen (Claude Code's plan mode: the plan, then
 * "Would you like to proceed?"). Found by its question row with the heading row above it; the
 * plan is what lies between. `approveKeys` / `rejectKeys`: the writes, one key each, that approve
 * the plan or reject it without feedback (the reason goes in as the next message).
 */
export interface PlanSpec {
  question: RegExp;
  heading: RegExp;
  approveKeys: string[];
  rejectKeys: string[];
  /**
   * Where the reject keys only select the reject choice (Claude Code: `3` focuses its feedback
   * field): `key` is pressed once a row matching `selected` shows that choice highlighted, never
   * before (an Enter that lands first would pick the highlighted approve choice).
   */
  rejectConfirm?: { selected: RegExp; key: string };
}

export interface PermissionChoice {
  key: string;
  label: string;
}

export interface Profile {
  id: ProfileId;
  aliases: string[];
  /**
   * How the profile's rules were made: `live` = checked against the real CLI in the e2e suite and
   * its recorded screens; `documented` = from the CLI's documentation and screenshots only (the CLI
   * cannot run offline here), shown as "not verified live" by `synapse profiles`. Default `live`.
   */
  verified?: 'live' | 'documented';
  /** Human-readable name shown in the agent card. */
  displayName: string;
  description: string;
  /** Executable to spawn; resolved on PATH unless absolute. */
  command: string;
  /**
   * Arguments always passed before the user's `-- <cli args>`. A flag followed by a token that is
   * not a flag takes it as its value (`-c key=value`); write a value that starts with `-` as
   * `--flag=value`. A flag the user passes again is passed once, as the user wrote it (`mergeArgs`).
   */
  args: string[];
  /** Flags the CLI takes more than once (`-c a=1 -c b=2`): never dropped for the user's. */
  repeatableFlags?: string[];
  /** Names of one flag (`['--dangerously-bypass-approvals-and-sandbox', '--yolo']`): the user's alias drops the profile's. */
  flagAliases?: string[][];
  /** Set for the CLI, over the environment synapse runs with. */
  env: Record<string, string>;
  /**
   * Variables never handed to the CLI, because they make it behave as if no person started it:
   * `CI=true` puts Gemini CLI in headless mode, where it exits at once (code 42). Which ones, and
   * why, per CLI: guides/profiles.md.
   */
  dropEnv: string[];
  ports: { first: number; last: number };
  /** Any of these in the CLI args means "resuming": no start-up instruction. */
  resumeFlags: string[];
  submit: SubmitSpec;
  interrupt: InterruptSpec;
  /** Clears the input row (Ctrl-U in Claude Code, Codex and Gemini CLI). */
  clearInputKey?: string;
  status: {
    /** Checked first: the CLI asks its human something. */
    waiting: ScreenRule[];
    /** The CLI is working. */
    processing: ScreenRule[];
    /** The idle input prompt is visible. */
    ready: ScreenRule[];
    /**
     * When no rule matches and the output has been quiet this long, assume READY.
     * `null` = never assume: the profile's READY rule must match.
     */
    quietReadyMs: number | null;
    /**
     * While the agent holds file locks or has a task in flight, the quiet-time fallback waits at
     * least this long (a CLI thinking silently must not look idle). Default 10 s.
     */
    protectionMs?: number;
  };
  /**
   * How to read and answer the CLI's approval dialog, found by its question row:
   * - `digit`: a numbered menu, a choice picked by typing its number (Claude Code, Codex, Gemini CLI);
   * - `arrows`: a numbered menu picked with ↑/↓ from the highlighted row and Enter (Copilot CLI);
   * - `row`: the choices side by side on one row (`Allow once   Allow always   Reject`), keyed 1…n
   *   in order and picked with ←/→ from the highlighted one and Enter (OpenCode).
   * `denyKey` answers "deny" on its own where picking the deny choice would ask for more
   * (Copilot CLI: Enter on `3. No, and tell Copilot what to do differently (Esc to stop)` opens
   * a feedback prompt; Esc denies and stops the turn).
   */
  permission?: { question: RegExp; select: 'digit' | 'arrows' | 'row'; denyKey?: string };
  /**
   * Where the CLI records the tokens of each model response (its session files), read after each
   * turn for `synapse history stats` (profiles/usage-records.ts). None: no usage is recorded.
   */
  usageLog?: UsageLogKind;
  /** The CLI's plan-approval screen, where it has one (see `PlanSpec`). */
  plan?: PlanSpec;
  /** CLI flag that turns on the CLI's own auto-approval (`synapse <profile> --auto-approve`). */
  autoApproveArgs?: string[];
  /**
   * The text currently in the CLI's input box ('' when empty), or null when no input box is
   * visible. A task is finished only once its text has left the box.
   */
  inputText(view: ScreenView): string | null;
  /**
   * How this CLI's turn starts, ends and settles on screen after a delivery: the delivery loop
   * asks it and runs the windows it names, the same loop for every CLI. Most profiles build it
   * from data with `screenTurns` (./turns.ts).
   */
  turn: TurnStrategy;
  /**
   * Turns the lines a task produced into its reply text: drops chrome (input box, footers,
   * spinners) and the echoed input. Lines arrive as rendered text.
   */
  cleanOutput(lines: string[], userText: string): string;
}

/** This turn's screen at one moment, as the delivery loop shows it to a turn strategy. */
export interface TurnScreen {
  /** The framed message typed into the CLI (what its echo starts with). */
  framed: string;
  /** The visible viewport now. */
  view: ScreenView;
  /** What the CLI's input box holds now (the profile's `inputText`): '' when empty, null when none is drawn. */
  inputText: string | null;
  /** The rows since the message was typed in (scrollback included, soft-wrapped rows joined). */
  lines(): string[];
  /** The reply as it would be read off the screen now (the profile's `cleanOutput` of `lines()`). */
  reply(): string;
}

/** What the delivery loop saw of the turn since its submit key. */
export interface TurnSeen {
  /** A settled reading after the submit saw the CLI working (or asking for approval). */
  sawBusy: boolean;
  /** The viewport right after the submit key, rows joined with '\n'. */
  viewAtSubmit: string;
  /**
   * Line feeds drawn since the submit key (some may be the tail of output that was still being
   * parsed at the submit). A view equal to `viewAtSubmit` with line feeds since is a screen of
   * identical exchanges that scrolled by one more, not a CLI that has not reacted yet.
   */
  lineFeedsSinceSubmit: number;
}

/**
 * A turn strategy's answer for an idle screen:
 * - `finish`: the turn is over; the task completes with the reply read now.
 * - `not-over`: nothing to wait for yet (a window already running keeps running); the next idle
 *   reading asks again.
 * - `wait`: over once `watch` (the reply read off the screen, or the whole screen) has held still
 *   for `ms` while the screen reads idle; if it moved, the strategy is asked again. A verdict
 *   naming the window that already runs keeps it running; another window starts afresh.
 *   `recheckOnReply`: ask again at the first screen change that draws a reply (no reading may
 *   come for it).
 */
export type TurnVerdict =
  { kind: 'finish' } | { kind: 'not-over'; why: string } | { kind: 'wait'; window: string; ms: number; watch: 'reply' | 'screen'; recheckOnReply?: boolean };

/**
 * Turn detection for one CLI. The delivery loop keeps the queue, the typing, the interrupts,
 * the resubmit and the timers; it asks the strategy what the screen means.
 */
export interface TurnStrategy {
  /**
   * The echo check: the screen shows the message taken (outside the input box), so the submit
   * key was not lost. `settled`: the screen was read after output settled, not mid-frame.
   */
  echoed(turn: TurnScreen, settled: boolean): boolean;
  /** The screen reads idle (READY) after the submit: is the turn over? */
  judge(turn: TurnScreen, seen: TurnSeen): TurnVerdict;
  /**
   * The screen reads idle and the turn is over, only settling: a priority-5 message then finishes
   * it rather than pressing the interrupt key on an idle CLI.
   */
  onlySettling(turn: TurnScreen, seen: TurnSeen): boolean;
}
