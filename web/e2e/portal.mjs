// The portal's end-to-end walk in real headless Chromium (Debian's, driven by playwright-core; no
// browser download). It runs against a running `einvoice serve --demo` and its demo-credentials.json:
//   node portal.mjs BASE_URL CREDENTIALS_FILE SCREENSHOT_DIR
// It prints one line per check and ends with "N passed, M failed"; the exit code is 1 when any failed.
import { chromium } from 'playwright-core';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { settingsWalk } from './settings.mjs';
import { adminWalk } from './admin.mjs';
import { documentsWalk } from './documents.mjs';

const [base, credentialsFile, shots] = process.argv.slice(2);
const creds = JSON.parse(readFileSync(credentialsFile, 'utf8'));
const sample = readFileSync(new URL('../../docs/sample-invoice.xml', import.meta.url), 'utf8');
mkdirSync(shots, { recursive: true });

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log('ok   ' + name); } else { failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
}

// The API, as an integrator calls it: a token from the client credentials, then documentsUBL.
async function token() {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(8).toString('hex');
  const mac = createHmac('sha256', creds.client_secret).update(`${creds.client_id}:${timestamp}:${nonce}`).digest('hex');
  const r = await fetch(creds.api_base + '/oauth2/token', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: creds.client_id, timestamp, nonce,
      signature: Buffer.from(mac).toString('base64') }),
  });
  return (await r.json()).access_token;
}

async function issue(bearer, number) {
  const r = await fetch(creds.api_base + '/apps/documentsUBL', {
    method: 'POST',
    headers: { 'Content-Type': 'application/xml', Authorization: 'Bearer ' + bearer, entity: creds.entities[0].public_key },
    body: sample.replaceAll('FT 2026/128', number),
  });
  return r.status;
}

const user = role => creds.portal.users.find(u => u.role === role && (role === 'support' || u.entity_nif));
const supplierUser = creds.portal.users.find(u => u.entity_nif === creds.entities[0].nif);
const customerUser = creds.portal.users.find(u => u.entity_nif === creds.entities[1].nif);
const supportUser = user('support');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// session opens a browser context signed in as u; every page error and failed request is recorded.
async function session(u, locale = 'pt-PT') {
  const ctx = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', e => page.errors.push(e.message));
  page.on('console', m => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.goto(base + '/portal/');
  check(`${u.username}: the portal sends a signed-out visitor to the sign-in form`, page.url().includes('/portal/login'));
  await page.fill('#username', u.username);
  await page.fill('#password', u.password);
  await page.click('form[action="/portal/login"] button[type=submit]');
  check(`${u.username}: signs in`, new URL(page.url()).pathname === '/portal/', page.url());
  return { ctx, page };
}

async function shot(page, name) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

async function numbers(page) {
  return page.$$eval('table tbody tr td:first-child a', as => as.map(a => a.textContent.trim()));
}

try {
  const stamp = Date.now().toString(36).slice(-5).toUpperCase();
  const bearer = await token();
  const issued = [];
  for (let i = 1; i <= 3; i++) {
    const number = `FT E2E${stamp}/${i}`;
    issued.push(number);
    check(`the API creates ${number}`, (await issue(bearer, number)) === 201);
  }

  // The supplier finds what it issued, filters by URL, exports.
  const s = await session(supplierUser);
  const cookies = await s.ctx.cookies();
  const sc = cookies.find(c => c.name === 'einvoice_session');
  check('the session cookie is HttpOnly and SameSite=Lax', sc && sc.httpOnly && sc.sameSite === 'Lax', JSON.stringify(sc));
  await shot(s.page, 'dashboard');
  await s.page.goto(base + '/portal/issued?number=' + encodeURIComponent(`E2E${stamp}`) + '&sort=number');
  check('issued: the three documents, sorted by number', JSON.stringify(await numbers(s.page)) === JSON.stringify(issued));
  await shot(s.page, 'issued');
  await s.page.goto(base + '/portal/issued?number=' + encodeURIComponent(issued[1]));
  check('issued: the number filter from the URL', JSON.stringify(await numbers(s.page)) === JSON.stringify([issued[1]]));
  check('issued: the filter form shows the URL\'s value', (await s.page.inputValue('#f-number')) === issued[1]);
  const csv = await s.page.request.get(base + '/portal/issued.csv?number=' + encodeURIComponent(`E2E${stamp}`));
  const lines = (await csv.text()).trim().split('\n');
  check('CSV export holds the filtered documents', csv.status() === 200 && lines.length === 4 && issued.every(n => lines.some(l => l.startsWith(n + ','))));
  const zip = await s.page.request.get(base + '/portal/issued.zip?number=' + encodeURIComponent(`E2E${stamp}`));
  const zipBody = await zip.body();
  check('ZIP export holds each filtered document\'s XML and PDF', zip.status() === 200 && zipBody.subarray(0, 2).toString() === 'PK' &&
    issued.every(n => zipBody.includes(n.replaceAll('/', '-') + '.xml') && zipBody.includes(n.replaceAll('/', '-') + '.pdf')));
  // The validator: the sample invoice passes; the same with a wrong currency is refused with rule ids.
  await s.page.goto(base + '/portal/validate');
  await s.page.setInputFiles('#file', new URL('../../docs/sample-invoice.xml', import.meta.url).pathname);
  await Promise.all([s.page.waitForNavigation(), s.page.click('form[action="/portal/validate"] button[type=submit]')]);
  check('validate: the sample invoice is valid', (await s.page.$('#report .badge.accepted')) !== null);
  await s.page.setInputFiles('#file', { name: 'bad.xml', mimeType: 'application/xml',
    buffer: Buffer.from(sample.replace('<cbc:DocumentCurrencyCode>EUR<', '<cbc:DocumentCurrencyCode>XXX<')) });
  await Promise.all([s.page.waitForNavigation(), s.page.click('form[action="/portal/validate"] button[type=submit]')]);
  const rules = await s.page.$$eval('#report ~ .table code, section .table code', cs => cs.map(c => c.textContent));
  check('validate: a wrong currency is refused with rule ids', (await s.page.$('#report .badge.rejected')) !== null && rules.length > 0, rules.join(','));
  await shot(s.page, 'validate');
  await s.page.goto(base + '/portal/account');
  await shot(s.page, 'account');
  check('supplier: no JavaScript error', s.page.errors.length === 0, s.page.errors.join('; '));

  // The customer finds them among what it received.
  const c = await session(customerUser);
  await c.page.goto(base + '/portal/received?q=' + encodeURIComponent('Fornecedor') + '&number=' + encodeURIComponent(`E2E${stamp}`));
  check('received: the customer sees the three documents', (await numbers(c.page)).length === 3);
  await shot(c.page, 'received');
  await c.page.goto(base + '/portal/issued?number=' + encodeURIComponent(`E2E${stamp}`));
  check('the customer does not see them as issued', (await numbers(c.page)).length === 0);

  // The document page: rendered from the UBL, with its files; the customer rejects with a reason and
  // the supplier sees it.
  await c.page.goto(base + '/portal/received?number=' + encodeURIComponent(`E2E${stamp}`));
  await c.page.click(`table a:text("${issued[0]}")`);
  check('document page: the number and the parties', (await c.page.textContent('h1')).includes(issued[0]) &&
    (await c.page.textContent('main')).includes(creds.entities[0].name));
  const docPath = new URL(c.page.url()).pathname;
  const xml = await c.page.request.get(base + docPath + '/xml');
  check('document page: the XML downloads with its number', xml.status() === 200 && (await xml.text()).includes(issued[0]));
  const pdf = await c.page.request.get(base + docPath + '/pdf');
  check('document page: the PDF downloads', pdf.status() === 200 && (await pdf.body()).subarray(0, 5).toString() === '%PDF-');
  await shot(c.page, 'document');
  await c.page.check('input[name=accepted][value="0"]');
  await c.page.fill('#reason', 'Falta a nota de encomenda');
  await Promise.all([c.page.waitForNavigation(), c.page.click('form.decision button[type=submit]')]);
  check('the customer rejects with a reason', (await c.page.textContent('.flash')) !== null && (await c.page.$('.badge.rejected')) !== null);
  await s.page.goto(base + docPath);
  const issuerView = await s.page.textContent('main');
  check('the supplier sees rejected and the reason in the timeline', (await s.page.$('.badge.rejected')) !== null &&
    issuerView.includes('Falta a nota de encomenda'));
  await shot(s.page, 'document-rejected');

  // A form posted from another site is refused; the session survives it.
  const evil = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<form id="f" method="post" action="${base}/portal/logout"><button id="go">go</button></form>`);
  });
  await new Promise(r => evil.listen(0, 'localhost', r));
  const evilPage = await c.ctx.newPage();
  await evilPage.goto(`http://localhost:${evil.address().port}/`);
  const [answer] = await Promise.all([evilPage.waitForNavigation(), evilPage.click('#go')]);
  check('a cross-site form post is refused', answer && answer.status() === 403, answer && String(answer.status()));
  evil.close();
  await c.page.goto(base + '/portal/');
  check('the session survives the cross-site post', new URL(c.page.url()).pathname === '/portal/');
  check('customer: no JavaScript error', c.page.errors.length === 0, c.page.errors.join('; '));

  // Support switches between entities with the select (our script submits it on change), in English.
  const sup = await session(supportUser, 'en-GB');
  await Promise.all([sup.page.waitForNavigation(), sup.page.selectOption('#entity-switch', 'PT' + creds.entities[0].nif)]);
  check('support: switching entity by the select', (await sup.page.textContent('h1')).includes(creds.entities[0].name));
  check('support: English from the browser', (await sup.page.getAttribute('html', 'lang')) === 'en');
  await shot(sup.page, 'support-overview');
  check('support: no JavaScript error', sup.page.errors.length === 0, sup.page.errors.join('; '));

  await settingsWalk({ base, creds, bearer, user: supplierUser, session, check, shot });
  await adminWalk({ base, creds, check, session, shot, token });
  await documentsWalk({ base, sample, check, shot, session, supplierUser, customerUser, stamp });

  // Signing out ends the session.
  await s.page.click('form[action="/portal/logout"] button');
  await s.page.goto(base + '/portal/issued');
  check('after signing out the portal asks to sign in again', s.page.url().includes('/portal/login'));
} catch (e) {
  check('the walk ran to its end', false, e.stack);
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
