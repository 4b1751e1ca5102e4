import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cleanupAll, ROOT, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';
import { postCard, SAMPLE_CARDS, startCanvas, type CanvasServer } from '../../support/canvas-fixtures.js';

/**
 * The Canvas dashboard in a real browser (Debian's chromium, driven by playwright-core): it
 * loads without console errors, draws every card type, follows the CLI live, keeps html cards
 * away from the page, talks to a real echo agent, and follows the task board. Screenshots go to
 * test/artifacts/canvas/. Without /usr/bin/chromium the suite is skipped, except in CI, where
 * .ci/run installs it and a missing browser fails.
 */

// What the callbacks given to page.evaluate see: the page's globals (the test compiles without the DOM library).
declare const window: any;
declare const document: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
const ARTIFACTS = path.join(ROOT, 'test', 'artifacts', 'canvas');

const t = tempHome();
const project = path.join(t.home, 'project');
let server: CanvasServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

const cli = (args: string[]) => runCli(args, { env: t.env, cwd: project });
async function cliJson(args: string[]): Promise<any> {
  const r = await cli([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}
const shot = (name: string) => path.join(ARTIFACTS, `${name}.png`);

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the Canvas dashboard in chromium', () => {
  beforeAll(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)`);
    fs.mkdirSync(project, { recursive: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    server = await startCanvas(t.env, project);
    for (const [type, card] of Object.entries(SAMPLE_CARDS)) await postCard(server.url, { type, id: `sample-${type}`, agent_id: 'alice', ...card });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
      if (process.env.CANVAS_DEBUG) console.log(`[browser ${m.type()}] ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await cleanupAll();
    t.cleanup();
  });

  it('loads with no console errors and draws every card type', async () => {
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="1"]');
    for (const type of Object.keys(SAMPLE_CARDS)) {
      await page.waitForSelector(`article[data-card-type="${type}"][data-rendered="1"]`, { timeout: 20_000 });
    }
    const card = (type: string) => page.locator(`article[data-card-type="${type}"]`);
    await expect(card('markdown').locator('h1').textContent()).resolves.toBe('Parser');
    expect(await card('mermaid').locator('svg').count()).toBe(1);
    expect(await card('table').locator('tbody tr').count()).toBe(2);
    expect(
      await card('chart')
        .locator('canvas')
        .evaluate((c: any) => c.width > 0),
    ).toBe(true);
    expect(await card('code').locator('.hljs-keyword').count()).toBeGreaterThan(0);
    await waitFor(
      async () =>
        (await card('html')
          .frameLocator('iframe')
          .locator('#report-head')
          .textContent()
          .catch(() => null)) === 'Build report',
      10_000,
      'the html frame',
    );
    expect(
      Number.parseInt(
        await card('html')
          .locator('iframe')
          .evaluate((f: any) => f.style.height),
        10,
      ),
    ).toBeGreaterThan(40);
    expect(await card('diff').locator('td.del').count()).toBeGreaterThan(0);
    expect(await card('diff').locator('td.add').count()).toBeGreaterThan(0);
    expect(
      await card('image')
        .locator('img')
        .evaluate((i: any) => i.complete && i.naturalWidth),
    ).toBe(160);
    expect(await card('link').locator('a').getAttribute('href')).toBe('https://example.com/spec');
    expect(await card('progress').locator('.progress-bar').getAttribute('style')).toContain('60%');
    expect(await card('terminal').locator('span[style*="color"]').count()).toBeGreaterThanOrEqual(3);
    expect(await card('dependency-graph').locator('svg').count()).toBe(1);
    expect(await card('cost').locator('tfoot').textContent()).toContain('2.32');
    expect(await card('briefing').locator('.section').count()).toBe(2);
    expect(await card('comparison').locator('.comparison > .section').count()).toBe(2);
    expect(await card('dashboard').locator('.progress').count()).toBe(1);
    expect(await card('steps').locator('li[data-status="done"]').count()).toBe(1);
    expect(await card('slides').locator('.section:not([hidden])').count()).toBe(1);
    expect(await card('plan').locator('li[data-step]').count()).toBe(3);
    expect(await card('plan').locator('svg').count()).toBe(1);
    expect(consoleErrors).toEqual([]);

    for (const type of Object.keys(SAMPLE_CARDS)) await card(type).screenshot({ path: shot(type) });
    await page.screenshot({ path: shot('view-cards'), fullPage: false });
  }, 90_000);

  it('shows a card posted from the CLI within a second, without a reload', async () => {
    await page.evaluate(() => (window.__sameDocument = true));
    const r = await cli(['canvas', 'markdown', '# Posted live', '--id', 'live-card', '--title', 'Live']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('no canvas server running');
    await page.waitForSelector('article[data-card-id="live-card"] h1', { timeout: 1000 });
    expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
    // An update in place moves the same card, and a delete removes it.
    expect((await cli(['canvas', 'markdown', '# Changed', '--id', 'live-card'])).code).toBe(0);
    await page.waitForFunction(() => document.querySelector('article[data-card-id="live-card"] h1')?.textContent === 'Changed', undefined, { timeout: 1000 });
    expect((await cli(['canvas', 'delete', 'live-card'])).code).toBe(0);
    await page.waitForSelector('article[data-card-id="live-card"]', { state: 'detached', timeout: 1000 });
  });

  it('keeps html and markdown cards from running script in the dashboard or touching it', async () => {
    await postCard(server.url, {
      type: 'html',
      id: 'hostile-html',
      title: 'hostile',
      body: '<p id="inside">harmless text</p><script>window.parent.document.body.dataset.pwned = "script"</script><img src="data:," onerror="window.parent.document.body.dataset.pwned = \'onerror\'"><a id="js" href="javascript:parent.document.body.dataset.pwned=\'href\'">x</a>',
    });
    await postCard(server.url, {
      type: 'markdown',
      id: 'hostile-md',
      title: 'hostile md',
      body: '# Title\n\n<script>document.body.dataset.pwned = "md-script"</script>\n\n<img src="data:," onerror="document.body.dataset.pwned = \'md-onerror\'">\n\n[click](javascript:document.body.dataset.pwned=1)',
    });
    await page.waitForSelector('article[data-card-id="hostile-html"][data-rendered="1"]');
    await page.waitForSelector('article[data-card-id="hostile-md"][data-rendered="1"]');
    const frame = page.frameLocator('article[data-card-id="hostile-html"] iframe');
    await waitFor(
      async () =>
        (await frame
          .locator('#inside')
          .textContent()
          .catch(() => null)) === 'harmless text',
      10_000,
      'the hostile frame to render',
    );
    // Sanitised: the script and the handler are gone from the frame and from the markdown.
    expect(await frame.locator('script').count()).toBe(0);
    expect(await frame.locator('[onerror]').count()).toBe(0);
    expect(await frame.locator('#js').getAttribute('href')).toBeNull();
    expect(await page.locator('article[data-card-id="hostile-md"] script, article[data-card-id="hostile-md"] [onerror]').count()).toBe(0);
    expect(await page.locator('article[data-card-id="hostile-md"] a[href^="javascript"]').count()).toBe(0);
    // And sandboxed: code that does run in the frame cannot reach the page.
    const child = page.frames().find((f) => f.url().endsWith('/frame') && f !== page.mainFrame());
    const frames = page.frames().filter((f) => f.url().endsWith('/frame'));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) {
      const reach = await f.evaluate(() => {
        try {
          return `reached: ${window.parent.document.title}`;
        } catch (e) {
          return `blocked: ${(e as Error).name}`;
        }
      });
      expect(reach).toBe('blocked: SecurityError');
      expect(await f.evaluate(() => window.origin)).toBe('null');
    }
    expect(child).toBeDefined();
    // Its API calls carry Origin: null, which the server refuses.
    const fromFrame = await child!.evaluate(async (url) => {
      try {
        const res = await fetch(`${url}/api/cards/clear`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return res.status;
      } catch {
        return 'blocked';
      }
    }, server.url);
    expect(fromFrame).not.toBe(200);
    expect(await page.evaluate(() => document.body.dataset.pwned ?? null)).toBeNull();
    expect(((await (await fetch(`${server.url}/api/cards?limit=1000`)).json()) as any).cards.length).toBeGreaterThan(10);
    await page.locator('article[data-card-id="hostile-html"]').screenshot({ path: shot('html-hostile') });
  });

  it('Agent Control sends a message to a real echo agent and shows its answer', async () => {
    const agent = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'echo-canvas'] });
    await page.goto(`${server.url}/#agents`);
    await page.waitForSelector(`#agents tr[data-agent-id="${agent.agentId}"]`, { timeout: 5000 });
    await page.screenshot({ path: shot('view-agents') });
    await page.goto(`${server.url}/#control`);
    await page.waitForSelector(`#control-agent option[value="${agent.agentId}"]`, { state: 'attached', timeout: 5000 });
    await page.selectOption('#control-agent', agent.agentId);
    await page.fill('#control-message', 'hello from the dashboard\nsecond line');
    // Enter alone (and Enter while an IME composes) does not send; Ctrl+Enter does.
    await page.press('#control-message', 'Enter');
    expect(await page.locator('.exchange').count()).toBe(0);
    await page.press('#control-message', 'Control+Enter');
    await page.waitForSelector('.exchange .answer.completed', { timeout: 20_000 });
    const answer = await page.locator('.exchange .answer').textContent();
    expect(answer).toMatch(/^ECHO: .*hello from the dashboard\nsecond line/s);
    await page.screenshot({ path: shot('view-control') });
  }, 60_000);

  it('the board view follows a claim made from the CLI, keeping a task expanded', async () => {
    const task = await cliJson(['tasks', 'create', 'Write the tokenizer', '-d', 'Handle **unicode** identifiers', '--component', 'parser']);
    await page.goto(`${server.url}/#board`);
    const node = `.task[data-task-id="${task.id}"]`;
    await page.waitForSelector(`[data-column="pending"] ${node}`, { timeout: 2000 });
    await page.click(`${node} .task-head`);
    await page.waitForSelector(`${node} .task-details strong`);
    expect((await cli(['tasks', 'claim', task.id, '--as', 'bob'])).code).toBe(0);
    await page.waitForSelector(`[data-column="in_progress"] ${node}`, { timeout: 2000 });
    expect(await page.locator(`${node} .task-head`).getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator(`${node} .task-details strong`).textContent()).toBe('unicode');
    await page.screenshot({ path: shot('view-board') });
    await page.selectOption('#board-view', 'component');
    await page.waitForSelector(`[data-column="parser"] ${node}`);
    await page.screenshot({ path: shot('view-board-component') });
  });

  it('accept-plan round trip: plan card → board tasks → step states follow the board', async () => {
    const file = path.join(t.home, 'plan.json');
    fs.writeFileSync(file, JSON.stringify(SAMPLE_CARDS.plan!.body));
    expect((await cli(['canvas', 'plan', '--file', file, '--id', 'release-plan', '--title', 'Release plan'])).code).toBe(0);
    await page.goto(`${server.url}/#cards`);
    const plan = 'article[data-card-id="release-plan"]';
    await page.waitForSelector(`${plan}[data-rendered="1"] li[data-step="lex"][data-status="proposed"]`, { timeout: 2000 });

    const accepted = await cliJson(['tasks', 'accept-plan', 'release-plan']);
    expect(accepted.changed.map((c: any) => c.step)).toEqual(['lex', 'parse', 'docs']);
    const lex = accepted.changed.find((c: any) => c.step === 'lex').task_id as string;
    const tasks = await cliJson(['tasks', 'list']);
    const mine = tasks.filter((x: any) => x.plan_id === 'release-plan');
    expect(mine).toHaveLength(3);
    expect(mine.every((x: any) => x.group_id === 'release-plan' && x.group_title === 'Release plan')).toBe(true);
    expect(mine.find((x: any) => x.subject === 'Write the parser').blocked_by).toEqual([lex]);
    expect((await cliJson(['tasks', 'accept-plan', 'release-plan']).catch((e) => e)) instanceof Error).toBe(true);

    expect((await cli(['tasks', 'claim', lex, '--as', 'alice'])).code).toBe(0);
    await page.waitForSelector(`${plan} li[data-step="lex"][data-status="active"]`, { timeout: 3000 });
    expect((await cli(['tasks', 'complete', lex])).code).toBe(0);
    await page.waitForSelector(`${plan} li[data-step="lex"][data-status="completed"]`, { timeout: 3000 });
    // The server already moved the card; sync-plan finds nothing left to move.
    expect((await cliJson(['tasks', 'sync-plan', 'release-plan'])).changed).toEqual([]);
    await page.locator(plan).screenshot({ path: shot('plan-accepted') });

    await page.goto(`${server.url}/#board`);
    await page.selectOption('#board-view', 'group');
    await page.waitForSelector('[data-column="release-plan"] .task');
    await page.screenshot({ path: shot('view-board-group') });
  }, 60_000);

  it('history, dark theme and a narrow window', async () => {
    await page.goto(`${server.url}/#history`);
    await page.waitForSelector('#history-count');
    await page.screenshot({ path: shot('view-history') });
    await page.goto(`${server.url}/#cards`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.click('#theme-toggle');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.waitForSelector('article[data-card-type="mermaid"][data-rendered="1"]');
    await page.screenshot({ path: shot('view-cards-dark') });
    await page.setViewportSize({ width: 390, height: 844 });
    // Charts redraw at the new width on their next frames; then nothing sticks out sideways: wide content (tables, code, diffs) scrolls inside its card.
    await page
      .waitForFunction(() => [...document.querySelectorAll('canvas')].every((c) => c.getBoundingClientRect().right <= window.innerWidth), undefined, {
        timeout: 3000,
      })
      .catch(() => undefined);
    const sticking = await page.evaluate(() =>
      [...document.querySelectorAll('main *, header *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.scroll-x, pre, .mermaid-box'))
        .map(
          (e) =>
            `${e.tagName}.${e.className} right=${Math.round(e.getBoundingClientRect().right)} in ${e.closest('article')?.getAttribute('data-card-type')} style=${e.getAttribute('style')}`,
        ),
    );
    expect(sticking).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: shot('view-cards-narrow') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
