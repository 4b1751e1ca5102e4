// A terminal card: text with ANSI SGR colour codes, shown as spans (every other escape is dropped).
import { el } from './lib.js';

const BASIC = ['#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5'];
const BRIGHT = ['#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff'];

function color256(n) {
  if (n < 8) return BASIC[n];
  if (n < 16) return BRIGHT[n - 8];
  if (n < 232) {
    const v = n - 16;
    const c = (x) => (x === 0 ? 0 : 55 + x * 40);
    return `rgb(${c(Math.floor(v / 36))},${c(Math.floor(v / 6) % 6)},${c(v % 6)})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

function apply(state, codes) {
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0) Object.assign(state, { fg: null, bg: null, bold: false, italic: false, underline: false });
    else if (c === 1) state.bold = true;
    else if (c === 3) state.italic = true;
    else if (c === 4) state.underline = true;
    else if (c === 22) state.bold = false;
    else if (c === 23) state.italic = false;
    else if (c === 24) state.underline = false;
    else if (c >= 30 && c <= 37) state.fg = BASIC[c - 30];
    else if (c >= 90 && c <= 97) state.fg = BRIGHT[c - 90];
    else if (c >= 40 && c <= 47) state.bg = BASIC[c - 40];
    else if (c >= 100 && c <= 107) state.bg = BRIGHT[c - 100];
    else if (c === 39) state.fg = null;
    else if (c === 49) state.bg = null;
    else if ((c === 38 || c === 48) && codes[i + 1] === 5 && Number.isInteger(codes[i + 2])) {
      state[c === 38 ? 'fg' : 'bg'] = color256(codes[i + 2] & 255);
      i += 2;
    } else if ((c === 38 || c === 48) && codes[i + 1] === 2 && codes.length >= i + 5) {
      const [r, g, b] = codes.slice(i + 2, i + 5).map((x) => Math.min(255, Math.max(0, x | 0)));
      state[c === 38 ? 'fg' : 'bg'] = `rgb(${r},${g},${b})`;
      i += 4;
    }
  }
}

export function renderAnsi(text) {
  const pre = el('pre', { class: 'terminal' });
  const state = { fg: null, bg: null, bold: false, italic: false, underline: false };
  // SGR sequences split the text; any other escape sequence is removed.
  const parts = String(text).split(/(\x1b\[[0-9;]*m)/);
  for (const part of parts) {
    const sgr = /^\x1b\[([0-9;]*)m$/.exec(part);
    if (sgr) {
      apply(state, sgr[1] === '' ? [0] : sgr[1].split(';').map((n) => Number(n) || 0));
      continue;
    }
    const clean = part.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g, '');
    if (!clean) continue;
    const styles = [];
    if (state.fg) styles.push(`color:${state.fg}`);
    if (state.bg) styles.push(`background:${state.bg}`);
    if (state.bold) styles.push('font-weight:bold');
    if (state.italic) styles.push('font-style:italic');
    if (state.underline) styles.push('text-decoration:underline');
    pre.append(styles.length ? el('span', { style: styles.join(';'), text: clean }) : clean);
  }
  return pre;
}
