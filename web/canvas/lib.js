// Small helpers shared by the views: DOM building, sanitised Markdown, lazy script loading.
import DOMPurify from '/vendor/dompurify/purify.es.mjs';
import { marked } from '/vendor/marked/marked.esm.js';

/** An element with attributes and children; strings become text nodes (never HTML). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

/** HTML that may be shown in this page: no script, no handlers, no javascript: URLs. */
export function sanitize(html) {
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}

/** HTML for an html card's frame: the same rules, but its own styles may stay (they only reach the frame). */
export function sanitizeDocument(html) {
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true, svg: true }, ADD_TAGS: ['style'], FORCE_BODY: true });
}

export function sanitizeSvg(svg) {
  return DOMPurify.sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true }, ADD_TAGS: ['style'] });
}

marked.setOptions({ gfm: true, breaks: false });

/** Markdown → a sanitised fragment inside a div. */
export function markdown(text, className = 'md') {
  const div = el('div', { class: className });
  div.innerHTML = sanitize(marked.parse(String(text ?? '')));
  for (const a of div.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
  }
  return div;
}

const scripts = new Map();
/** Loads a classic script (a library's browser build) once. */
export function loadScript(src) {
  if (!scripts.has(src)) {
    scripts.set(
      src,
      new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = src;
        s.onload = () => resolve();
        s.onerror = () => reject(new Error(`cannot load ${src}`));
        document.head.append(s);
      }),
    );
  }
  return scripts.get(src);
}

export function theme() {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}

export function timeAgo(iso) {
  if (!iso) return '';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return new Date(iso).toLocaleDateString();
}

export async function api(path, options = {}) {
  const res = await fetch(path, {
    ...options,
    headers: options.body ? { 'content-type': 'application/json', ...(options.headers ?? {}) } : options.headers,
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
  return body;
}

let toastTimer = null;
export function toast(text, kind = 'info') {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 4000);
}
