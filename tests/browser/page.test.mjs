// The web page of `damka serve` in a real browser (issue 33): headless Chromium (Debian's)
// driven by Playwright (playwright-core from the npm registry, which downloads no browser). Starts the server on a free loopback port over a table directory
// (Brazilian up to 4 pieces), loads the page, checks the board, the value in words and the moves,
// enters a FEN, clicks a move, checks the new position, undoes it, and reads the page on a
// phone-sized screen. Screenshots go to SHOTS (default: a scratch directory).
//
// Usage: node tests/browser/page.test.mjs DAMKA TABLES [SHOTS]
// Environment: CHROMIUM, the browser (default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [damka, tables, shotsArg] = process.argv.slice(2);
if (!damka || !tables) {
  console.error('usage: node tests/browser/page.test.mjs DAMKA TABLES [SHOTS]');
  process.exit(2);
}
const shots = shotsArg || mkdtempSync(join(tmpdir(), 'damka-page-'));
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log('FAIL: ' + what);
  }
}

/* Starts damka serve; resolves with the process and its port. */
function start() {
  return new Promise((resolve, reject) => {
    const p = spawn(damka, ['serve', '--tables', tables, '--listen', '127.0.0.1:0', '--threads', '2'],
                    { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) resolve({ p, port: Number(m[1]) });
    });
    p.on('exit', (code) => reject(new Error('damka serve exited (' + code + '): ' + err)));
  });
}

const texts = (page, sel) => page.$$eval(sel, (es) => es.map((e) => e.textContent));
const pieces = (page) => page.$$eval('#board circle.piece', (es) => es.length);

const { p, port } = await start();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const version = browser.version();
const errors = [];
/* A page in a fresh context of `options` (viewport, phone), its errors collected. */
async function open(options) {
  const page = await (await browser.newContext(options)).newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push('request failed: ' + r.url()));
  return page;
}
try {
  let page = await open({ viewport: { width: 1000, height: 640 } });
  const base = `http://127.0.0.1:${port}/`;

  // the default position: three kings, White wins in 3 plies
  await page.goto(base + '#brazilian/W:WK25,K29:BK4/0');
  await page.waitForSelector('#moves li button');
  check((await pieces(page)) === 3, 'the board does not show three pieces');
  const value = await page.$eval('#value', (e) => e.textContent);
  check(/^White to move: win in 3 plies/.test(value) && /2 plies to conversion/.test(value), 'value: ' + value);
  const moves = await texts(page, '#moves li button span:first-child');
  check(moves.length === 7 && moves[0] === 'b2-g7', 'moves: ' + moves.join(' '));
  check((await page.$$eval('#board text', (es) => es.length)) === 32, 'the 8x8 board has no 32 square numbers');
  await page.screenshot({ path: join(shots, 'serve-page.png') });

  // a FEN typed in: one capture, played by a click; the board and FEN follow; undo
  await page.fill('#fen', 'W:Wb6:Bc7,e7');
  await page.click('#show');
  await page.waitForFunction(() => document.querySelector('#fen').value === 'W:W9:B6,7'
    && document.querySelectorAll('#moves li').length === 1);
  check((await texts(page, '#moves li button span:first-child'))[0] === 'b6xf6', 'the capture b6xf6 is not listed');
  await page.click('#moves li button');
  await page.waitForFunction(() => document.querySelector('#fen').value.startsWith('B:'));
  const after = await page.$eval('#fen', (e) => e.value);
  check(after === 'B:W11:B', 'after b6xf6 the FEN is ' + after);
  check((await pieces(page)) === 1, 'after the capture the board does not show one piece');
  const lost = await page.$eval('#value', (e) => e.textContent);
  check(/^Black to move has no legal move and has lost/.test(lost), 'after the capture: ' + lost);
  check(!(await page.$eval('#undo', (e) => e.disabled)), 'Undo is disabled after a move');
  await page.click('#undo');
  await page.waitForFunction(() => document.querySelector('#fen').value === 'W:W9:B6,7');
  check((await pieces(page)) === 3, 'Undo does not bring the captured piece back');

  // a bad FEN says so; the rule counter shows a cursed win
  await page.fill('#fen', 'W:WK25,K29:BK');
  await page.click('#show');
  await page.waitForFunction(() => document.querySelector('#error').textContent.length > 0);
  check(/bad FEN/.test(await page.$eval('#error', (e) => e.textContent)), 'a bad FEN shows no error');
  await page.fill('#fen', 'W:WK25,K29:BK4');
  await page.fill('#counter', '29');
  await page.click('#show');
  await page.waitForFunction(() => /cursed win/.test(document.querySelector('#value').textContent));

  // a phone: the board fits the screen's width, the moves follow below it
  page = await open({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto(base + '#brazilian/W:WK25,K29:BK4/0');
  await page.waitForSelector('#moves li button');
  const box = await page.$eval('#board', (e) => e.getBoundingClientRect().toJSON());
  const list = await page.$eval('#moves', (e) => e.getBoundingClientRect().toJSON());
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(box.width > 300 && box.right <= 375 && width <= 375, 'on a phone the board is ' + JSON.stringify(box) + ', the page ' + width);
  check(list.top >= box.bottom, 'on a phone the moves are not below the board');
  await page.screenshot({ path: join(shots, 'serve-page-phone.png'), fullPage: true });
  check(errors.length === 0, 'errors in the page: ' + errors.join('; '));
} finally {
  await browser.close();
  p.kill('SIGTERM');
}
if (failures) {
  console.log(`page.test.mjs: ${failures} failure(s)`);
  process.exit(1);
}
console.log(`   page.test.mjs: the page works in Chromium ${version} (screenshots in ${shots})`);
