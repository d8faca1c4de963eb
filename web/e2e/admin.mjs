// The support console's part of the browser walk (imported and called by portal.mjs): an entity's
// user requests a connection, support approves it in the console, creates an OAuth client and sees its
// secret once; every console page is screenshotted, and anyone else finds no console.

import { readFileSync } from 'node:fs';

// adminWalk runs the steps with portal.mjs's helpers: check(name, ok, detail), session(user, locale),
// shot(page, name) and token() (an API bearer token of the demo client).
export async function adminWalk({ base, creds, check, session, shot, token }) {
  const customer = creds.entities[1], supplier = creds.entities[0];
  const customerUser = creds.portal.users.find(u => u.entity_nif === customer.nif);
  const supportUser = creds.portal.users.find(u => u.role === 'support');

  // A document sent by e-mail, so that the demo's outbox folder has a message to show.
  const mailed = 'FT ADM' + Date.now().toString(36).slice(-5).toUpperCase() + '/1';
  const sample = readFileSync(new URL('../../docs/sample-invoice.xml', import.meta.url), 'utf8');
  const issued = await fetch(creds.api_base + '/apps/documentsUBL?send_by_email=1&additional_emails=' + encodeURIComponent('contabilidade@cliente.example'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/xml', Authorization: 'Bearer ' + await token(), entity: supplier.public_key },
    body: sample.replaceAll('FT 2026/128', mailed),
  });
  check(`the API issues ${mailed} with an e-mail`, issued.status === 201, String(issued.status));

  // The customer's user asks for a connection to the supplier (the demo has only the other direction).
  const c = await session(customerUser);
  await c.page.goto(base + '/portal/connections');
  check('connections: the entity sees its connections', (await c.page.$$('table tbody tr')).length >= 1);
  await c.page.fill('#c-nif', 'PT' + supplier.nif);
  await c.page.fill('#c-observation', 'Pedido pelo walk E2E');
  await Promise.all([c.page.waitForNavigation(), c.page.click('form[action="/portal/connections"] button[type=submit]')]);
  const asked = await c.page.getAttribute('.flash', 'data-message');
  check('connections: the request is recorded, under analysis', asked === 'connections.requested_ok' &&
    (await c.page.$('.badge.conn-analyzing')) !== null, asked);
  await shot(c.page, 'connections');
  const denied = await c.page.request.get(base + '/portal/admin/entities');
  check('an entity\'s user finds no console (404)', denied.status() === 404, String(denied.status()));

  // Support: every console page, then the review of the request.
  const s = await session(supportUser, 'en-GB');
  await s.page.goto(base + '/portal/admin/');
  check('console: /portal/admin/ opens the entities', new URL(s.page.url()).pathname === '/portal/admin/entities');
  await shot(s.page, 'admin-entities');
  await Promise.all([s.page.waitForNavigation(), s.page.click(`table a:text("${supplier.name}")`)]);
  check('console: an entity\'s settings and recipient rules', (await s.page.$('form[action$="/rules"]')) !== null);
  await shot(s.page, 'admin-entity');
  for (const [path, name] of [['seals', 'admin-seals'], ['users', 'admin-users'], ['webhooks', 'admin-webhooks'],
    ['as2', 'admin-as2'], ['upstreams', 'admin-upstreams'], ['edi', 'admin-edi']]) {
    const r = await s.page.goto(base + '/portal/admin/' + path);
    check(`console: ${path} page`, r.status() === 200 && (await s.page.$('nav.tabs a[aria-current="page"]')) !== null);
    await shot(s.page, name);
  }
  // The mail job writes the message to the outbox folder within a few seconds.
  let eml = null;
  for (let i = 0; i < 30 && !eml; i++) {
    await s.page.goto(base + '/portal/admin/emails');
    // Other e-mails (connection notices) may be written too; take the invoice's, addressed to the customer.
    eml = await s.page.$('section[aria-labelledby="outbox"] tbody tr:has(td:text("contabilidade@cliente.example")) a');
    if (!eml) await new Promise(r => setTimeout(r, 1000));
  }
  check('console: the outbox folder lists the e-mail', eml !== null);
  await shot(s.page, 'admin-emails');
  if (eml) {
    await Promise.all([s.page.waitForNavigation(), eml.click()]);
    const text = (await s.page.textContent('pre.eml')) || '';
    check('console: an outbox e-mail as text', text.includes('contabilidade@cliente.example') && text.includes('Return-Path'));
    await shot(s.page, 'admin-email');
  }

  await s.page.goto(base + '/portal/admin/connections');
  const row = s.page.locator('tr', { hasText: customer.name }).filter({ has: s.page.locator('.conn-analyzing') }).first();
  check('console: the request waits for review', (await row.count()) === 1);
  await shot(s.page, 'admin-connections');
  await row.locator('select[name=state]').selectOption('approved');
  await row.locator('input[name=reason]').fill('Contrato confirmado');
  await row.locator('input[name=admin_observation]').fill('Aprovado no walk E2E');
  await Promise.all([s.page.waitForNavigation(), row.locator('button[type=submit]').click()]);
  check('console: support approves the connection', (await s.page.getAttribute('.flash', 'data-message')) === 'admin.connection_reviewed');
  await c.page.goto(base + '/portal/connections');
  const mine = c.page.locator('tr', { hasText: 'Contrato confirmado' });
  check('connections: the requester sees it approved, with the reason', (await mine.count()) === 1 &&
    (await mine.locator('.badge.conn-approved').count()) === 1);

  // An OAuth client: the secret is on the answer that creates it, and never again.
  await s.page.goto(base + '/portal/admin/credentials');
  await s.page.fill('#client-name', 'E2E client');
  await Promise.all([s.page.waitForNavigation(), s.page.click('form[action="/portal/admin/clients"] button[type=submit]')]);
  const secret = (await s.page.textContent('#created-secret') || '').trim();
  const clientID = (await s.page.textContent('#created-client-id') || '').trim();
  check('console: a new OAuth client shows its secret', secret.length >= 32 && clientID.length > 0);
  await shot(s.page, 'admin-client-created');
  await s.page.goto(base + '/portal/admin/credentials');
  const again = await s.page.textContent('main');
  check('console: the secret is not shown again', !again.includes(secret) && again.includes(clientID));
  await shot(s.page, 'admin-credentials');

  await s.page.goto(base + '/portal/admin/audit?actor=' + encodeURIComponent(supportUser.username));
  const actions = await s.page.$$eval('table tbody td code', cs => cs.map(c => c.textContent));
  check('console: the audit log has support\'s changes', actions.includes('connection.state') && actions.includes('client.create'), actions.join(','));
  await shot(s.page, 'admin-audit');

  check('console: no JavaScript error', s.page.errors.length === 0 && c.page.errors.length === 0, s.page.errors.concat(c.page.errors).join('; '));
  await s.ctx.close();
  await c.ctx.close();
}
