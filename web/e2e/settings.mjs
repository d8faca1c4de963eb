// The settings part of the portal's walk: the supplier's administrator fills the company profile, the
// data method then issues without the supplier's address, a webhook is added and tested and its
// delivery shows in the log, and every section renders without a JavaScript error.
import { createServer } from 'node:http';

export async function settingsWalk({ base, creds, bearer, user, session, check, shot }) {
  const s = await session(user);
  const { page } = s;
  await page.click('header nav a[href="/portal/settings"]');
  check('settings: the menu leads to the company profile', new URL(page.url()).pathname === '/portal/settings');
  const profile = {
    'profile-street': 'Rua do Ouro', 'profile-building_number': '42', 'profile-postal_zone': '1100-060',
    'profile-city': 'Lisboa', 'profile-region': 'Lisboa', 'profile-country': 'PT', 'profile-share_capital': '5.000,00 EUR',
    'profile-legal_form': 'Sociedade por quotas', 'profile-email': 'faturacao@fornecedor.example',
    'profile-telephone': '+351 210 000 100', 'profile-iban': 'PT50 0002 0123 1234 5678 9015 4', 'profile-gln': '5601234000016',
  };
  for (const [id, value] of Object.entries(profile)) await page.fill('#' + id, value);
  await Promise.all([page.waitForNavigation(), page.click('form[data-form="profile"] button[type=submit]')]);
  check('settings: the profile is saved', (await page.getAttribute('.flash', 'data-message')) === 'settings.saved' &&
    (await page.inputValue('#profile-street')) === 'Rua do Ouro');
  await shot(page, 'settings-profile');

  // The data method without any supplier field: the profile completes it.
  const stamp = Date.now().toString(36).toUpperCase();
  const r = await fetch(creds.api_base + '/apps/documents', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + bearer, entity: creds.entities[0].public_key },
    body: JSON.stringify({
      number: `FT PERFIL${stamp}/1`, emission_date: new Date().toISOString().slice(0, 10), type_document_fact: 'FT',
      due_date: new Date(Date.now() + 30 * 864e5).toISOString().slice(0, 10),
      customer: { number: creds.entities[1].nif, name: creds.entities[1].name, street: 'Avenida da Liberdade 200',
        city: 'Lisboa', postal_zone: '1250-147', country_code: 'PT' },
      payment_means: { code: '30' },
      lines: [{ name: 'Consultoria', quantity: '1', price: '100.00', taxes: [{ tax_percent: '23' }] }],
    }),
  });
  const answer = await r.json();
  check('the data method issues without supplier address fields once the profile is filled', r.status === 201,
    r.status + ' ' + JSON.stringify(answer.errors || answer.message));

  // A webhook: added (its key shown once), tested, and its delivery in the log.
  const received = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', d => { body += d; });
    req.on('end', () => { received.push({ id: req.headers['webhook-id'], body }); res.end('ok'); });
  });
  await new Promise(ok => hook.listen(0, '127.0.0.1', ok));
  const hookURL = `http://127.0.0.1:${hook.address().port}/einvoice`;
  await page.goto(base + '/portal/settings/webhooks');
  await page.fill('#add-webhook-url', hookURL);
  await Promise.all([page.waitForNavigation(), page.click('form[data-form="add-webhook"] button[type=submit]')]);
  check('settings: a new webhook\'s key is shown once', (await page.getAttribute('.flash', 'data-message')) === 'settings.webhooks.key_once' &&
    (await page.textContent('.flash')).includes('whsec_'));
  const row = page.locator('.hook', { hasText: hookURL });
  await Promise.all([page.waitForNavigation(), row.locator('form[action$="/test"] button').click()]);
  check('settings: the test is sent', (await page.getAttribute('.flash', 'data-message')) === 'settings.webhooks.tested');
  let delivered = null;
  for (let i = 0; i < 50 && !delivered; i++) {
    await page.waitForTimeout(200);
    await page.goto(base + '/portal/settings/webhooks');
    delivered = await page.$(`table.deliveries tr:has(td:text("${hookURL}")) .badge.accepted`);
  }
  check('settings: the test delivery shows in the log with status 200', delivered !== null && (await delivered.textContent()).trim() === '200');
  check('the webhook receiver got the signed test event', received.length >= 1 && received[0].id && JSON.parse(received[0].body).event === 'webhook.test');
  await shot(page, 'settings-webhooks');
  const before = received.length;
  await Promise.all([page.waitForNavigation(),
    page.locator(`table.deliveries tr:has(td:text("${hookURL}"))`).first().locator('form button').click()]);
  for (let i = 0; i < 50 && received.length === before; i++) await page.waitForTimeout(100);
  check('settings: a delivery is redelivered with the same webhook-id', received.length > before && received.at(-1).id === received[0].id);
  hook.close();

  for (const section of ['mail', 'notifications', 'processstates', 'rules', 'seal', 'users']) {
    const resp = await page.goto(base + '/portal/settings/' + section);
    check(`settings: ${section} renders`, resp.status() === 200 && (await page.$(`.subnav a[href="/portal/settings/${section}"][aria-current=page]`)) !== null);
    await shot(page, 'settings-' + section);
  }
  check('settings: no JavaScript error', page.errors.length === 0, page.errors.join('; '));
  await s.ctx.close();
}
