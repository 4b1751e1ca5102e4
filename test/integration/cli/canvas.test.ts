import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clearCanvas, deleteCanvasCard, listCanvas, postRaw, postShortcut, postTyped } from '../../../src/cli/commands/canvas.js';
import { acceptPlanCommand, syncPlanCommand } from '../../../src/cli/commands/tasks.js';
import { claimTask, completeTask, failTask } from '../../../src/cli/commands/tasks.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { useTempProject } from '../../support/project.js';
import { SAMPLE_CARDS } from '../../support/canvas-fixtures.js';

/** `synapse canvas …` and the plan commands in-process, on a real canvas.db and board in a temp HOME and project (no server running: straight to the file). */

const ctx = useTempProject();
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const io = (env: NodeJS.ProcessEnv = {}, stdin?: string) => ({
  env: { ...ctx.project.env, ...env },
  cwd: ctx.project.dir,
  ...(stdin === undefined ? {} : { stdin }),
});
const run = (command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv, stdin?: string) => runCommand(command, io(env, stdin));
const json = <T = any>(command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv, stdin?: string) => runJson<T>(command, io(env, stdin));

describe('synapse canvas', () => {
  it('posts every shortcut type from an argument, a file or stdin, and lists them newest first', async () => {
    const dir = ctx.project.dir;
    fs.writeFileSync(path.join(dir, 'add.ts'), 'export const add = (a: number, b: number) => a + b;\n');
    fs.writeFileSync(path.join(dir, 'r.csv'), 'file,lines\na.ts,12\nb.ts,30\n');
    fs.writeFileSync(path.join(dir, 'logo.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    const code = await json((i) => postShortcut('code', undefined, { file: 'add.ts', json: true }, i));
    expect(code.card.body).toEqual({ code: 'export const add = (a: number, b: number) => a + b;\n', language: 'typescript', filename: 'add.ts' });
    expect(code.via).toBe('database');
    expect((await json((i) => postShortcut('table', undefined, { file: 'r.csv', json: true }, i))).card.body).toEqual({
      headers: ['file', 'lines'],
      rows: [
        ['a.ts', '12'],
        ['b.ts', '30'],
      ],
    });
    expect((await json((i) => postShortcut('image', 'logo.png', { json: true }, i))).card.body.src).toMatch(/^data:image\/png;base64,/);
    const diff = await json((i) => postShortcut('diff', '-', { json: true }, i), {}, '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n');
    expect(diff.card.body).toContain('+b');
    for (const type of ['mermaid', 'markdown', 'html'] as const) {
      expect((await run((i) => postShortcut(type, String(SAMPLE_CARDS[type]!.body), { title: type }, i))).code).toBe(0);
    }
    for (const type of ['chart', 'briefing', 'plan'] as const) {
      expect((await run((i) => postShortcut(type, JSON.stringify(SAMPLE_CARDS[type]!.body), {}, i))).code).toBe(0);
    }
    for (const type of ['progress', 'terminal', 'dependency-graph', 'cost', 'comparison', 'dashboard', 'steps', 'slides']) {
      const r = await run((i) => postTyped(type, JSON.stringify(SAMPLE_CARDS[type]!.body), { id: `t-${type}` }, i));
      expect(r.code, r.stderr).toBe(0);
    }
    const all = await json((i) => listCanvas({ limit: '100', json: true }, i));
    expect(all).toHaveLength(18);
    expect(all[0].id).toBe('t-slides');
    expect((await json((i) => listCanvas({ limit: '100', type: 'plan', json: true }, i))).map((c: any) => c.type)).toEqual(['plan']);
    expect((await json((i) => listCanvas({ limit: '100', search: 'Document', json: true }, i))).map((c: any) => c.type)).toEqual(['plan']);
    const table = await run((i) => listCanvas({ limit: '5' }, i));
    expect(table.stdout).toMatch(/^ID\s+TYPE\s+TITLE\s+AUTHOR\s+UPDATED/);
  });

  it('refuses bodies that do not fit their type, with the problem named, and posts nothing', async () => {
    const bad: [string, string, RegExp][] = [
      ['chart', '{"type":"bar"}', /datasets/],
      ['table', '{"headers":"x","rows":[]}', /headers/],
      ['plan', '{"steps":[{"id":"a","title":"A","depends_on":["a"]}]}', /not another step/],
      ['nope', '"x"', /unknown card type 'nope'/],
      ['progress', '{oops', /not valid JSON/],
    ];
    for (const [type, body, message] of bad) {
      const r = await run((i) => postTyped(type, body, {}, i));
      expect(r.code, type).toBe(1);
      expect(r.stderr).toMatch(message);
    }
    expect((await run((i) => postShortcut('link', 'file:///etc/passwd', {}, i))).stderr).toMatch(/http\(s\) URL/);
    expect((await run((i) => postShortcut('markdown', 'x', { file: 'also.md' }, i))).stderr).toMatch(/give the body once/);
    expect((await run((i) => postRaw('{"body":"x"}', {}, i))).stderr).toMatch(/"type"/);
    expect(await json((i) => listCanvas({ limit: '10', json: true }, i))).toEqual([]);
  });

  it('post-raw takes a whole card; --id updates in place; --mine, delete and clear work by author', async () => {
    const a = await json((i) => postRaw('{"type":"markdown","title":"Note","body":"v1","id":"note","tags":["x"]}', { json: true }, i), {
      SYNAPSE_AGENT_ID: 'alice',
    });
    expect(a).toMatchObject({ created: true, card: { id: 'note', title: 'Note', agent_id: 'alice', tags: ['x'] } });
    const b = await json((i) => postShortcut('markdown', 'v2', { id: 'note', json: true }, i), { SYNAPSE_AGENT_ID: 'alice' });
    expect(b).toMatchObject({ created: false, card: { id: 'note', body: 'v2', created_at: a.card.created_at } });
    expect((await run((i) => postShortcut('table', '{"headers":[],"rows":[]}', { id: 'note' }, i))).stderr).toMatch(/is a markdown card/);
    await run((i) => postShortcut('markdown', 'by bob', {}, i), { SYNAPSE_AGENT_ID: 'bob' });
    expect((await json((i) => listCanvas({ limit: '10', mine: true, json: true }, i), { SYNAPSE_AGENT_ID: 'bob' })).map((c: any) => c.body)).toEqual([
      'by bob',
    ]);
    expect((await json((i) => deleteCanvasCard('note', { json: true }, i))).id).toBe('note');
    const gone = await run((i) => deleteCanvasCard('note', {}, i));
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no card 'note'/);
    expect(await json((i) => clearCanvas({ agent: 'alice', json: true }, i))).toEqual({ deleted: 0 });
    expect(await json((i) => clearCanvas({ json: true }, i))).toEqual({ deleted: 1 });
  });

  it('a link card reads the page title and description when the page answers, and keeps the URL alone when it does not', async () => {
    const server = http.createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>The &amp; Spec</title><meta name="description" content="What it must accept."></head></html>'),
    );
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/spec`;
    const card = (await json((i) => postShortcut('link', url, { json: true }, i))).card;
    expect(card).toMatchObject({ title: 'The & Spec', body: { url, title: 'The & Spec', description: 'What it must accept.' } });
    const dead = (await json((i) => postShortcut('link', 'http://127.0.0.1:1/none', { json: true }, i))).card;
    expect(dead.body).toEqual({ url: 'http://127.0.0.1:1/none' });
    const skipped = (await json((i) => postShortcut('link', url, { fetch: false, json: true }, i))).card;
    expect(skipped.body).toEqual({ url });
  });
});

describe('synapse tasks accept-plan / sync-plan', () => {
  it('turns the steps into board tasks with their dependencies, once, and moves the steps with the board', async () => {
    await json((i) => postShortcut('plan', JSON.stringify(SAMPLE_CARDS.plan!.body), { id: 'p1', title: 'Parser plan', json: true }, i));
    expect((await run((i) => syncPlanCommand('p1', {}, i))).stderr).toMatch(/has not been accepted/);
    const accepted = await json((i) => acceptPlanCommand('p1', { json: true }, i));
    const ids = Object.fromEntries(accepted.changed.map((c: any) => [c.step, c.task_id]));
    expect(Object.keys(ids)).toEqual(['lex', 'parse', 'docs']);
    expect(accepted.card.body.steps.map((s: any) => [s.id, s.status, s.task_id])).toEqual([
      ['lex', 'proposed', ids.lex],
      ['parse', 'proposed', ids.parse],
      ['docs', 'proposed', ids.docs],
    ]);
    expect((await run((i) => acceptPlanCommand('p1', {}, i))).stderr).toMatch(/already accepted/);

    const blocked = await run((i) => claimTask(ids.parse, { as: 'alice' }, i));
    expect(blocked.code).not.toBe(0);
    await json((i) => claimTask(ids.lex, { as: 'alice', json: true }, i));
    expect((await json((i) => syncPlanCommand('p1', { json: true }, i))).changed).toEqual([{ step: 'lex', task_id: ids.lex, status: 'active' }]);
    await json((i) => completeTask(ids.lex, { json: true }, i));
    await json((i) => claimTask(ids.parse, { as: 'bob', json: true }, i));
    await json((i) => failTask(ids.parse, { reason: 'no time', json: true }, i));
    const synced = await json((i) => syncPlanCommand('p1', { json: true }, i));
    expect(synced.card.body.steps.map((s: any) => s.status)).toEqual(['completed', 'cancelled', 'proposed']);
    expect((await run((i) => syncPlanCommand('p1', {}, i))).stdout).toMatch(/up to date/);
    expect((await run((i) => acceptPlanCommand('nope', {}, i))).stderr).toMatch(/no card 'nope'/);
  });
});
