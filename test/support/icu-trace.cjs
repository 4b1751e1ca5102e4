// Preload for tests that ask whether a process used ICU (the locale and time-zone data in node's
// binary, ~1-3 MiB of RSS once touched, guides/agent-runtime.md "Memory"):
//   NODE_OPTIONS="--require <this file>" ICU_TRACE_DIR=<dir> synapse …
// appends to <dir>/<pid>.txt, once per kind, each call that makes V8 load it: a collator
// (localeCompare, Intl.Collator), a Date turned into text or read in local time (which sets up
// ICU's time zones), number formatting and the other Intl services; with the stack that called.
// A file per process, because NODE_OPTIONS reaches every node process the command starts.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.ICU_TRACE_DIR;
if (dir) {
  const file = path.join(dir, `${process.pid}.txt`);
  const seen = new Set();
  const note = (kind) => {
    if (seen.has(kind)) return;
    seen.add(kind);
    const stack = (new Error().stack ?? '').split('\n').slice(3, 9).join('\n');
    fs.appendFileSync(file, `${kind}\n${stack}\n\n`);
  };
  const trap = (proto, name, kind) => {
    const original = proto[name];
    if (typeof original !== 'function') return;
    Object.defineProperty(proto, name, {
      ...Object.getOwnPropertyDescriptor(proto, name),
      value: function traced(...args) {
        note(kind);
        return original.apply(this, args);
      },
    });
  };
  trap(String.prototype, 'localeCompare', 'String#localeCompare');
  trap(Number.prototype, 'toLocaleString', 'Number#toLocaleString');
  trap(BigInt.prototype, 'toLocaleString', 'BigInt#toLocaleString');
  trap(Array.prototype, 'toLocaleString', 'Array#toLocaleString');
  const dateText = [
    'toISOString',
    'toJSON',
    'toString',
    'toDateString',
    'toTimeString',
    'toUTCString',
    'toLocaleString',
    'toLocaleDateString',
    'toLocaleTimeString',
  ];
  const dateLocal = [
    'getFullYear',
    'getMonth',
    'getDate',
    'getDay',
    'getHours',
    'getMinutes',
    'getSeconds',
    'getMilliseconds',
    'getTimezoneOffset',
    'setFullYear',
    'setMonth',
    'setDate',
    'setHours',
    'setMinutes',
    'setSeconds',
    'setMilliseconds',
  ];
  for (const name of [...dateText, ...dateLocal]) trap(Date.prototype, name, `Date#${name}`);
  // A date-time string without an offset is local time, and so is a Date made of its parts.
  const parse = Date.parse;
  const localText = (v) => typeof v === 'string' && !/(?:Z|GMT|UTC?|[+-]\d\d:?\d\d)$/i.test(v.trim()) && /\d:\d/.test(v);
  Date.parse = function tracedParse(text) {
    if (localText(text)) note('Date.parse of a local time');
    return parse.call(this, text);
  };
  const NativeDate = Date;
  globalThis.Date = new Proxy(NativeDate, {
    construct(target, args, newTarget) {
      if (args.length > 1) note('new Date(year, month, …)');
      else if (localText(args[0])) note('new Date(a local time)');
      return Reflect.construct(target, args, newTarget === globalThis.Date ? target : newTarget);
    },
  });
  for (const name of Object.getOwnPropertyNames(Intl)) {
    const Service = Intl[name];
    if (typeof Service !== 'function') continue;
    Intl[name] = new Proxy(Service, {
      construct(target, args, newTarget) {
        note(`Intl.${name}`);
        return Reflect.construct(target, args, newTarget);
      },
      apply(target, self, args) {
        note(`Intl.${name}`);
        return Reflect.apply(target, self, args);
      },
    });
  }
}
