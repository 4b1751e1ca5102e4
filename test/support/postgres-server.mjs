// A real PostgreSQL server for one test run (issue 22): initdb into a temp data directory, start
// it on a free loopback port with its unix socket in that directory, stop it afterwards. initdb
// and the server refuse to run as root, so as root everything runs as the `postgres` user (via
// runuser or su) and the temp directory is handed to that user.
//
// Used by test/support/postgres-setup.ts (vitest globalSetup) and bench/store.mjs (types: postgres-server.d.mts). When no
// server can be started, `startPostgres` returns the reason instead of throwing, so the tests
// can say exactly why they cannot run (and fail in CI, where they must run).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const USER = 'synapse';

/** The directory holding initdb and pg_ctl: SYNAPSE_TEST_PG_BIN (only it, when set), else Debian's /usr/lib/postgresql/<ver>/bin (newest), then PATH. */
function findPostgresBin(env = process.env) {
  const candidates = [];
  // An explicit choice is the only candidate (also how to check the "no server" path).
  if (env.SYNAPSE_TEST_PG_BIN) return isExecutable(path.join(env.SYNAPSE_TEST_PG_BIN, 'pg_ctl')) ? env.SYNAPSE_TEST_PG_BIN : null;
  try {
    const versions = fs
      .readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(path.join('/usr/lib/postgresql', v, 'bin'));
  } catch {
    // not Debian's layout
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) if (dir) candidates.push(dir);
  for (const dir of candidates) {
    if (isExecutable(path.join(dir, 'initdb')) && isExecutable(path.join(dir, 'pg_ctl'))) return fs.realpathSync(dir);
    // /usr/local/bin/initdb may be a lone symlink into the real bin directory
    const initdb = path.join(dir, 'initdb');
    if (isExecutable(initdb)) {
      const real = path.dirname(fs.realpathSync(initdb));
      if (isExecutable(path.join(real, 'pg_ctl'))) return real;
    }
  }
  return null;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = srv.address().port;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a command, as the `postgres` user when this process is root. */
function run(cmd, args, asUser) {
  let file = cmd;
  let argv = args;
  if (asUser) {
    if (isExecutable('/usr/sbin/runuser') || isExecutable('/sbin/runuser')) {
      file = isExecutable('/usr/sbin/runuser') ? '/usr/sbin/runuser' : '/sbin/runuser';
      argv = ['-u', asUser, '--', cmd, ...args];
    } else {
      file = 'su';
      argv = [asUser, '-s', '/bin/sh', '-c', [cmd, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')];
    }
  }
  const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim();
  return { ok: r.status === 0, output };
}

function osUserExists(name) {
  return spawnSync('id', ['-u', name], { stdio: 'ignore' }).status === 0;
}

/** Starts a private server, or says why it cannot. */
/** @returns {Promise<import('./postgres-server.d.mts').PostgresStart>} */
export async function startPostgres() {
  const bin = findPostgresBin();
  if (!bin) {
    return {
      ok: false,
      reason:
        'no PostgreSQL server binaries found (initdb and pg_ctl in /usr/lib/postgresql/<ver>/bin or on PATH); install them with `apt-get install postgresql` (.ci/run does)',
    };
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const asUser = root ? 'postgres' : null;
  if (root && !osUserExists('postgres')) {
    return { ok: false, reason: 'running as root, and initdb refuses root, but there is no `postgres` user to run it as' };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-pg-'));
  const dataDir = path.join(dir, 'data');
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const pwfile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  const cleanupDir = () => fs.rmSync(dir, { recursive: true, force: true });
  if (root) {
    fs.chmodSync(dir, 0o700);
    const chown = spawnSync('chown', ['-R', 'postgres:', dir], { encoding: 'utf8' });
    if (chown.status !== 0) {
      cleanupDir();
      return { ok: false, reason: `cannot hand ${dir} to the postgres user: ${chown.stderr}` };
    }
  }
  const init = run(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync', '--locale=C'],
    asUser,
  );
  if (!init.ok) {
    cleanupDir();
    return { ok: false, reason: `initdb failed: ${init.output.split('\n').slice(-5).join(' | ')}` };
  }
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const opts = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=100`;
    const started = run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-o', opts, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start'], asUser);
    if (started.ok) {
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], asUser);
        cleanupDir();
      };
      return { ok: true, server: { url: `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`, port, dataDir, stop } };
    }
    let log = '';
    try {
      log = fs.readFileSync(path.join(dir, 'server.log'), 'utf8');
    } catch {
      // no log
    }
    lastError = `${started.output} ${log.split('\n').slice(-5).join(' | ')}`;
    if (!/address already in use|could not bind/i.test(lastError)) break;
  }
  cleanupDir();
  return { ok: false, reason: `pg_ctl start failed: ${lastError.trim()}` };
}
