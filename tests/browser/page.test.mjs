// The web page of `damka serve` in a real browser (issues 33, 55 and 57): headless Chromium
// (Debian's) driven by Playwright (playwright-core from the npm registry, which downloads no
// browser). Starts the server on a free loopback port over a table directory holding the three
// variants, and checks: the values and moves the page shows against `damka query --json` on 23
// positions of the three variants, a position set up by clicks (palette, clear, swap, flip), moves
// played by clicks and by the board, Back/Forward of the page and of the browser, a new address
// typed in the same tab, the rule's limit reached (a draw; no request past it), two clicks in a
// row, a shared link, the best line, the PDN, the capture path (and a Russian man crowned during
// one), errors without a server path, the board's coordinates and numbers, and a phone-sized
// screen. Screenshots go to SHOTS (default: a scratch directory).
//
// Usage: node tests/browser/page.test.mjs DAMKA TABLES [SHOTS]
// Environment: CHROMIUM, the browser (default /usr/bin/chromium).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { paletted } from './png.mjs';

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
/* damka query --json's answer. */
function query(variant, fen, counter) {
  return JSON.parse(execFileSync(damka, ['query', '--tables', tables, '--variant', variant, '--counter', String(counter),
                                         '--json', fen], { encoding: 'utf8' }));
}

/* Positions of the three variants: wins, losses, draws, captures, men, cursed wins, a blessed loss. */
const POSITIONS = [
  ['brazilian', 'W:WK25,K29:BK4', 0], ['brazilian', 'W:WK25,K29:BK4', 29], ['brazilian', 'W:W9:B6,7', 0],
  ['brazilian', 'B:WK8,K29:BK4', 0], ['brazilian', 'W:WK1:BK32', 0], ['brazilian', 'B:W21,22:B9,10', 0],
  ['brazilian', 'W:W24:BK1', 0], ['brazilian', 'W:W5,6:B28', 0], ['brazilian', 'W:WK1,K2,K3:BK32', 25],
  ['brazilian', 'W:WK10,K15:BK27', 20],
  ['international', 'W:WK46,K47:BK5', 0], ['international', 'W:WK46,K47:BK5', 48], ['international', 'B:WK46,K47:BK5', 49],
  ['international', 'W:W28:B23', 0], ['international', 'W:WK1:BK50', 0], ['international', 'B:W30,35:B5', 0],
  ['international', 'W:W33:B18,19', 0], ['international', 'B:W33:B18,19', 0], ['international', 'W:WK46:BK5,10', 0],
  ['international', 'W:W45:B6', 0],
  ['russian', 'W:WK25,K29:BK4', 0], ['russian', 'W:W11:B7,9,K29', 0], ['russian', 'W:W11:B7,9', 0]];
const LABEL = { win: 'win', 'cursed-win': 'cursed win', draw: 'draw', 'blessed-loss': 'blessed loss', loss: 'loss' };
const plies = (n) => n + (n === 1 ? ' ply' : ' plies');

/* A screenshot of page into SHOTS/name, with a palette (png.mjs) to keep docs/ small. */
const shot = async (page, name, options) => writeFileSync(join(shots, name), paletted(await page.screenshot(options)));
const text = (page, sel) => page.$eval(sel, (e) => e.textContent);
const texts = (page, sel) => page.$$eval(sel, (es) => es.map((e) => e.textContent));
const pieces = (page) => page.$$eval('#board circle.piece', (es) => es.length);
/* Waits until the page shows the answer to (variant, fen, counter); throws, saying what it shows
 * instead, after 5 s. */
async function shown(page, variant, fen, counter) {
  const key = `${variant}|${fen}|${counter}`;
  try {
    await page.waitForFunction((k) => document.body.dataset.shown === k, key, { timeout: 5000 });
  } catch (e) {
    const now = await page.evaluate(() => [document.body.dataset.shown, document.querySelector('#value').textContent,
                                           document.querySelector('#error').textContent].join(' / '));
    throw new Error('the page does not show ' + key + ' but ' + now);
  }
}

const { p, port } = await start();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const version = browser.version();
const errors = [];
const asked = [];
/* A page in a fresh context of `options` (viewport, phone), its errors and requests collected. */
async function open(options) {
  const page = await (await browser.newContext(options)).newPage();
  page.setDefaultTimeout(5000);
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push('request failed: ' + r.url()));
  page.on('request', (r) => asked.push(r.url()));
  return page;
}
try {
  const base = `http://127.0.0.1:${port}/`;
  let page = await open({ viewport: { width: 900, height: 600 } });

  // the default position: three kings, White wins in 3 plies; coordinates a-h and 1-8
  await page.goto(base + '#brazilian/W:WK25,K29:BK4/0');
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  check((await pieces(page)) === 3, 'the board does not show three pieces');
  check((await page.$$eval('#board text.number', (es) => es.length)) === 32, 'the 8x8 board has no 32 square numbers');
  const coords = (await texts(page, '#board text.coord')).sort().join('');
  check(coords === '12345678abcdefgh', 'the 8x8 board\'s coordinates: ' + coords);
  check(/Tables on this server: Brazilian \(8x8\) up to 4 pieces, the 15-move rule; International \(10x10\) up to 3 pieces/
        .test(await text(page, '#tables')), 'the tables held: ' + await text(page, '#tables'));
  check(/drawn when 15 moves by each side \(30 plies\).*Counter: 0 of 30/.test(await text(page, '#rule')),
        'the rule\'s sentence: ' + await text(page, '#rule'));

  // 23 positions of the three variants, each a new address in the same tab, against damka query
  for (const [variant, fen, counter] of POSITIONS) {
    const q = query(variant, fen, counter), what = `${variant} ${fen} counter ${counter}`;
    await page.evaluate((h) => { location.hash = h; }, `${variant}/${fen}/${counter}`);
    await shown(page, variant, q.fen, counter);
    check((await page.$eval('#fen', (e) => e.value)) === q.fen, what + ': the FEN field');
    const value = await text(page, '#value'), detail = await text(page, '#detail');
    const mover = q.fen[0] === 'W' ? 'White' : 'Black', gt = q.result === 'draw' ? 'draw' : q.result + ' in ' + plies(q.dtw);
    check(value === mover + ' to move: ' + LABEL[q.rule.category], what + ': value ' + value);
    check(detail.startsWith('DTW: ' + gt) &&
          (q.rule.dtc === null || detail.includes('DTC: ' + plies(q.rule.dtc) + ' to the next capture')), what + ': ' + detail);
    check((await page.$eval('#value', (e) => e.className)) === q.rule.category, what + ': the value\'s colour');
    const rows = await page.$$eval('#moves section', (ss) => ss.flatMap((s) => [...s.querySelectorAll('button.move')].map((b) => ({
      group: s.dataset.category, name: b.querySelector('.name').textContent,
      badges: [...b.querySelectorAll('.badge')].map((x) => x.textContent) }))));
    check(rows.length === q.moves.length, what + ': ' + rows.length + ' moves on the page, ' + q.moves.length + ' in query');
    q.moves.forEach((m, i) => {
      const r = rows[i] || { badges: [] };
      const badges = [m.dtw === null ? 'draw' : 'DTW ' + m.dtw];
      if (m.rule.dtc !== null) badges.push('DTC ' + m.rule.dtc);
      if (/cursed|blessed/.test(m.rule.category)) badges.push(LABEL[m.rule.category]);
      check(r.name === m.notation && r.group === m.rule.category && r.badges.join('|') === badges.join('|'),
            what + ': move ' + i + ' ' + JSON.stringify(r) + ' is not ' + m.notation + ' ' + m.rule.category + ' ' + badges);
    });
  }
  // cursed wins and blessed losses have colours of their own
  const colour = (sel) => page.$eval(sel, (e) => getComputedStyle(e).color);
  await page.evaluate(() => { location.hash = 'international/W:WK46,K47:BK5/48'; });
  await shown(page, 'international', 'W:WK46,K47:BK5', 48);
  const cursed = await colour('#value');
  await page.evaluate(() => { location.hash = 'international/W:WK46,K47:BK5/0'; });
  await shown(page, 'international', 'W:WK46,K47:BK5', 0);
  const win = await colour('#value');
  check(cursed !== win, 'a cursed win has the colour of a win: ' + cursed);
  // the 10x10 numbers are readable: at least 11 px high on this screen
  const high = await page.$eval('#board text.number', (e) => e.getBoundingClientRect().height);
  check(high >= 11, 'the 10x10 square numbers are ' + high.toFixed(1) + ' px high');
  const settled = () => page.waitForFunction(() => document.body.dataset.shown !== '');
  await page.click('#moves button.move');
  await settled();
  await page.click('#moves button.move');
  await settled();
  await page.click('#back');
  await settled();
  // a king's double capture hovered: its path, through the square it lands on between the two
  await page.evaluate(() => { location.hash = 'international/W:WK46:B13,32/0'; });
  await shown(page, 'international', 'W:WK46:B13,32', 0);
  await page.hover('#moves button.move');
  const points = await page.$eval('#board polyline.path', (e) => e.getAttribute('points').split(' ').length);
  check(points === 3 && (await page.$$eval('#board .captured', (es) => es.length)) === 2,
        'the path of ' + await text(page, '#moves .name') + ' hovered: ' + points + ' points');
  await shot(page, 'serve-page-10x10.png');

  // a position outside the tables, a bad FEN: one line, no server path
  await page.evaluate(() => { location.hash = 'brazilian/W:W21,22,23,24:B9/0'; });
  await shown(page, 'brazilian', 'W:W21,22,23,24:B9', 0);
  const unknown = await text(page, '#side');
  check(/Not in the tables: the position has 5 pieces, the tables hold at most 4/.test(unknown) &&
        !/not in the tables.*not in the tables/i.test(unknown) && !unknown.includes(tables), 'outside the tables: ' + await text(page, '#value'));
  await page.fill('#fen', 'W:WK25,K29:BK');
  await page.click('#show');
  await shown(page, 'brazilian', 'W:WK25,K29:BK', 0);
  const bad = await text(page, '#error');
  check(/^bad FEN for brazilian: [^;]*$/.test(bad), 'a bad FEN: ' + bad);

  // set up by clicks: clear, kings from the palette, a piece removed, swap the side, flip
  await page.click('#clear');
  await shown(page, 'brazilian', 'W:W:B', 0);
  check((await pieces(page)) === 0, 'Clear leaves pieces');
  await page.click('[data-tool="W"]');
  for (const n of [25, 29, 30]) await page.click(`#board rect[data-square="${n}"]`);
  await page.click('#board rect[data-square="30"]');
  await page.click('[data-tool="B"]');
  await page.click('#board rect[data-square="4"]');
  await page.click('[data-tool="B"]');
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  check(/^White to move: win/.test(await text(page, '#value')), 'the position set up: ' + await text(page, '#value'));
  await page.click('#swap');
  await shown(page, 'brazilian', 'B:WK25,K29:BK4', 0);
  const swapped = query('brazilian', 'B:WK25,K29:BK4', 0);
  check((await text(page, '#value')) === 'Black to move: ' + swapped.rule.category, 'after Swap: ' + await text(page, '#value'));
  await page.click('#flip');
  const corner = await page.$eval('#board rect[data-square="1"]', (e) => [+e.getAttribute('x'), +e.getAttribute('y')]);
  check(corner[1] > 300, 'after Flip square 1 is not at the bottom: ' + corner);
  await page.click('#flip');
  await page.click('#swap');

  // moves played by clicks (a list and the board), Back/Forward of the page and of the browser
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  await page.click('#moves button.move');  // b2-g7
  await shown(page, 'brazilian', 'B:WK8,K29:BK4', 1);
  await page.click('#board rect[data-square="4"]');
  await page.click('#board rect[data-square="11"]');  // h8xf6 by the board
  await shown(page, 'brazilian', 'W:WK29:BK11', 0);
  check((await texts(page, '#line button')).join(' ') === 'b2-g7 h8xf6', 'the line: ' + await texts(page, '#line button'));
  check((await page.$$eval('#board .captured', (es) => es.length)) === 1, 'the capture played is not marked');
  await page.keyboard.press('ArrowLeft');
  await shown(page, 'brazilian', 'B:WK8,K29:BK4', 1);
  await page.keyboard.press('ArrowRight');
  await shown(page, 'brazilian', 'W:WK29:BK11', 0);
  await page.click('#first');
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  check((await texts(page, '#line button')).length === 2, 'going back loses the line');
  await page.click('#last');
  await shown(page, 'brazilian', 'W:WK29:BK11', 0);
  await page.goBack();
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  await page.goBack();
  await shown(page, 'brazilian', 'W:WK29:BK11', 0);
  await page.goBack();
  await shown(page, 'brazilian', 'B:WK8,K29:BK4', 1);
  check((await pieces(page)) === 3, 'browser Back: the board');
  await page.goForward();
  await shown(page, 'brazilian', 'W:WK29:BK11', 0);

  // the capture path of a move hovered: b6xf6 over c7 and e7
  await page.evaluate(() => { location.hash = 'brazilian/W:W9:B6,7/0'; });
  await shown(page, 'brazilian', 'W:W9:B6,7', 0);
  await page.hover('#moves button.move');
  const path = await page.$eval('#board polyline.path', (e) => e.getAttribute('points').split(' ').length);
  check(path === 3 && (await page.$$eval('#board .captured', (es) => es.length)) === 2, 'the path of b6xf6 hovered: ' + path + ' points');
  // Russian: a man crowned on d8 during f6xd8xa5 goes on as a king, and is a king on a5 after it
  await page.evaluate(() => { location.hash = 'russian/W:W11:B7,9,K29/0'; });
  await shown(page, 'russian', 'W:W11:B7,9,K29', 0);
  await page.hover('#moves button.move');
  const crowning = await page.$eval('#board polyline.path', (e) => e.getAttribute('points').split(' ').length);
  check(crowning === 3 && (await text(page, '#moves .name')) === 'f6xa5', 'the path of f6xa5 hovered: ' + crowning + ' points');
  await page.click('#moves button.move');
  await shown(page, 'russian', 'B:WK13:BK29', 0);

  // two clicks in a row: the second, on a move of the old position, does nothing
  await page.evaluate(() => { location.hash = 'brazilian/W:WK25,K29:BK4/0'; });
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  await page.evaluate(() => { const b = document.querySelectorAll('#moves button.move'); b[0].click(); b[1].click(); });
  await shown(page, 'brazilian', 'B:WK8,K29:BK4', 1);
  check((await texts(page, '#line button')).join(' ') === 'b2-g7', 'two clicks: the line is ' + await texts(page, '#line button'));

  // the best line; its PDN
  await page.click('#first');
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 0);
  await page.click('#best');
  await page.waitForFunction(() => document.querySelectorAll('#line button').length === 3);
  const best = (await (await fetch(base + 'brazilian/mainline?fen=W:WK25,K29:BK4')).json()).mainline.map((s) => s.notation);
  check((await texts(page, '#line button')).join(' ') === best.join(' '), 'the best line: ' + await texts(page, '#line button'));
  const pdn = await page.$eval('#pdn', (e) => e.value);
  check(pdn.includes('[GameType "26"]') && pdn.includes('[FEN "W:WK25,K29:BK4"]') && pdn.includes('1. b2-g7 h8xf6 2. a1xh8 *'),
        'the PDN: ' + pdn);
  await page.hover('#moves button.move');
  await shot(page, 'serve-page.png');
  await page.keyboard.press('End');
  await shown(page, 'brazilian', 'B:WK4:B', 0);
  check((await text(page, '#value')) === 'Black has no piece left and has lost.', 'the end of the best line: ' + await text(page, '#value'));

  // the rule's limit: from counter 29 a quiet king move reaches 30, a draw; nothing asked past it
  await page.evaluate(() => { location.hash = 'brazilian/W:WK25,K29:BK4/29'; });
  await shown(page, 'brazilian', 'W:WK25,K29:BK4', 29);
  check(/cursed win/.test(await text(page, '#value')), 'counter 29: ' + await text(page, '#value'));
  await page.click('#moves button.move');
  await shown(page, 'brazilian', 'B:WK8,K29:BK4', 30);
  check(/^Draw by the rule/.test(await text(page, '#value')), 'at the limit: ' + await text(page, '#value'));
  check((await text(page, '#error')) === '', 'at the limit an error: ' + await text(page, '#error'));
  check((await page.$$eval('#moves button.move', (es) => es.length)) === 5 &&
        (await page.$$eval('#moves button.move', (es) => es.every((e) => e.disabled))), 'at the limit the moves can be played');
  check(/Counter: 30 of 30/.test(await text(page, '#rule')), 'at the limit the counter: ' + await text(page, '#rule'));
  check(!asked.some((u) => /counter=(3[1-9]|[4-9]\d)/.test(u) && u.includes('brazilian')), 'a request past the limit: ' +
        asked.filter((u) => /counter=3[1-9]/.test(u)).join(' '));

  // a shared link: position, counter and line in a fresh browser context
  await page.evaluate(() => { location.hash = 'international/W:WK46,K47:BK5/3'; });
  await shown(page, 'international', 'W:WK46,K47:BK5', 3);
  await page.click('#moves button.move');
  await settled();
  await page.click('#moves button.move');
  await settled();
  await page.keyboard.press('ArrowLeft');
  await settled();
  const link = page.url(), want = await page.evaluate(() => [document.body.dataset.shown, document.querySelector('#line').textContent]);
  const other = await open({ viewport: { width: 800, height: 600 } });
  await other.goto(link);
  await other.waitForFunction(() => document.body.dataset.shown !== '' && document.body.dataset.shown !== undefined);
  const got = await other.evaluate(() => [document.body.dataset.shown, document.querySelector('#line').textContent]);
  check(JSON.stringify(got) === JSON.stringify(want) && /\/3\//.test(link), 'the link ' + link + ' shows ' + got + ', not ' + want);

  // a link with a move that is not legal: the line stops before it, said once
  await other.goto(base + '#brazilian/W:WK25,K29:BK4/0/25-8_9-13');
  await shown(other, 'brazilian', 'B:WK8,K29:BK4', 1);
  check((await text(other, '#error')) === 'the move 9-13 is not legal in B:WK8,K29:BK4: the line stops before it' &&
        (await texts(other, '#line button')).join(' ') === 'b2-g7', 'a link with a bad move: ' + await text(other, '#error'));
  // the keyboard: a move played with Enter keeps the focus in the list; the PDN copied
  await other.focus('#moves button.move');
  await other.keyboard.press('Enter');
  await shown(other, 'brazilian', 'W:WK29:BK11', 0);
  check(await other.evaluate(() => document.activeElement.classList.contains('move')), 'after Enter the focus left the moves');
  await other.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await other.click('#copypdn');
  const copied = await other.evaluate(() => navigator.clipboard.readText());
  check(copied === await other.$eval('#pdn', (e) => e.value) && copied.includes('1. b2-g7 h8xf6 *'), 'the PDN copied: ' + copied);

  // a phone: the board fits the screen's width, the moves follow below it
  page = await open({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  await page.goto(base + '#brazilian/W:WK25,K29:BK4/0/25-8');
  await shown(page, 'brazilian', 'B:WK8,K29:BK4', 1);
  const box = await page.$eval('#board', (e) => e.getBoundingClientRect().toJSON());
  const list = await page.$eval('#moves', (e) => e.getBoundingClientRect().toJSON());
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(box.width > 300 && box.right <= 375 && width <= 375, 'on a phone the board is ' + JSON.stringify(box) + ', the page ' + width);
  check(list.top >= box.bottom, 'on a phone the moves are not below the board');
  await shot(page, 'serve-page-phone.png', { fullPage: true });
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
