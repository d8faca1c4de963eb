// The document walk of the portal's end-to-end suite, run by portal.mjs: the supplier issues by
// uploading an XML (an invalid one first, refused with rule ids), sends the e-mail again, the customer
// rejects with a reason, the supplier sees it and corrects the document by uploading the new version.
// Downloads are checked by their bytes; every page is saved as a screenshot.

// unsigned is the sample without its own signature, which a new number would break (the demo's
// supplier has a seal: the service signs what it issues).
const unsigned = xml => xml.replace(/<ext:UBLExtensions[\s\S]*<\/ext:UBLExtensions>/, '');

export async function documentsWalk({ base, sample, check, shot, session, supplierUser, customerUser, stamp }) {
  const number = `FT DOC${stamp}/1`;
  const xml = unsigned(sample).replaceAll('FT 2026/128', number);
  const s = await session(supplierUser);
  const submit = async (page, form) => {
    await Promise.all([page.waitForNavigation(), page.click(`${form} button[type=submit]`)]);
  };

  // The upload form, from the menu.
  await s.page.click('header nav a[href="/portal/documents/new"]');
  check('new: the menu leads to the upload form', new URL(s.page.url()).pathname === '/portal/documents/new');
  await shot(s.page, 'new');

  // An invalid document is refused with the official rules' findings and their ids.
  await s.page.setInputFiles('#document', { name: 'invalid.xml', mimeType: 'application/xml',
    buffer: Buffer.from(xml.replace('<cbc:DocumentCurrencyCode>EUR<', '<cbc:DocumentCurrencyCode>XXX<')) });
  await submit(s.page, 'form.upload');
  const rules = await s.page.$$eval('tr[data-rule]', rows => rows.map(r => r.dataset.rule));
  check('new: an invalid upload shows rule ids', rules.length > 0 && rules.every(r => /^[A-Z]+-[A-Z0-9.-]+$/.test(r)), rules.join(','));
  check('new: the refusal names e217', (await s.page.$('[data-code="e217"]')) !== null);
  // The refusal is a 400 page, which the browser reports on its console: expected, not a script error.
  s.page.errors = s.page.errors.filter(e => !e.includes('status of 400'));
  await shot(s.page, 'new-invalid');

  // The valid one is issued, e-mailed too, and its page opens.
  await s.page.setInputFiles('#document', { name: 'invoice.xml', mimeType: 'application/xml', buffer: Buffer.from(xml) });
  await s.page.check('input[name=send_by_email]');
  await s.page.fill('#additional-emails', 'contabilidade@cliente.example');
  await submit(s.page, 'form.upload');
  const docPath = new URL(s.page.url()).pathname;
  check('new: the upload issues the document', /^\/portal\/documents\/[0-9a-f]{32}$/.test(docPath) &&
    (await s.page.getAttribute('.flash', 'data-message')) === 'new.issued', s.page.url());
  check('document: the service\'s XAdES signature is verified', (await s.page.$('[data-signature="XAdES:verified"]')) !== null);
  check('document: the e-mails are queued', (await s.page.$$('li[data-event="email_queued"]')).length >= 1);
  check('document: the PDF is shown inline', (await s.page.getAttribute('iframe.pdf', 'src')) === docPath + '/pdf?inline=1');
  await shot(s.page, 'document-issued');
  for (const link of await s.page.$$eval('ul.files a', as => as.map(a => ({ href: a.getAttribute('href'), kind: a.dataset.file })))) {
    const r = await s.page.request.get(base + link.href);
    const body = await r.body();
    if (link.kind === 'XML') {
      check('document: the XML downloads with its number', r.status() === 200 && body.toString().includes(number));
    } else if (link.kind === 'PDF') {
      check('document: the PDF downloads', r.status() === 200 && body.subarray(0, 5).toString() === '%PDF-');
    } else {
      check(`document: the attachment ${link.href} downloads`, r.status() === 200 && body.length > 0);
    }
  }

  // Sent again by e-mail to another address.
  await s.page.fill('#addresses', 'outra.pessoa@cliente.example');
  await submit(s.page, 'form.resend');
  check('document: the e-mail is sent again', (await s.page.getAttribute('.flash', 'data-message')) === 'doc.resent' &&
    (await s.page.textContent('ol.timeline')).includes('outra.pessoa@cliente.example'));
  await shot(s.page, 'document-resent');

  // The customer rejects it with a reason naming a rule.
  const c = await session(customerUser);
  await c.page.goto(base + docPath);
  await c.page.check('input[name=accepted][value="0"]');
  await c.page.fill('#reason', 'Falta a referência da encomenda (BR-CO-15)');
  await submit(c.page, 'form.decision');
  check('the customer rejects the uploaded document', (await c.page.$('.badge.rejected')) !== null);
  check('customer: no JavaScript error on the document pages', c.page.errors.length === 0, c.page.errors.join('; '));

  // The supplier sees the rejection, its reason with the rule id, and corrects the document.
  await s.page.goto(base + docPath);
  check('the supplier sees the rejection and its reason in the timeline', (await s.page.$('.badge.rejected')) !== null &&
    (await s.page.textContent('ol.timeline')).includes('Falta a referência da encomenda'));
  check('the reason\'s rule id is shown', (await s.page.$('tr.reason code[data-rule="BR-CO-15"]')) !== null);
  await shot(s.page, 'document-rejected-reasons');
  await s.page.goto(base + docPath + '/correct');
  check('correct: the form keeps the e-mail option', await s.page.isChecked('input[name=send_by_email]'));
  await shot(s.page, 'correct');
  await s.page.goto(base + docPath);
  await s.page.setInputFiles('#correct-document', { name: 'corrected.xml', mimeType: 'application/xml',
    buffer: Buffer.from(xml.replace('Requisição 2026/311', 'Requisição 2026/311, encomenda 4500012345')) });
  await submit(s.page, 'form.correct');
  check('correct: the new version is sent', new URL(s.page.url()).pathname === docPath &&
    (await s.page.getAttribute('.flash', 'data-message')) === 'correct.done' && (await s.page.$('li[data-event="edit"]')) !== null &&
    (await s.page.$('.badges .badge.sent')) !== null);
  const corrected = await s.page.request.get(base + docPath + '/xml');
  check('correct: the XML is the new version', (await corrected.text()).includes('encomenda 4500012345'));
  await shot(s.page, 'document-corrected');
  check('supplier: no JavaScript error on the document pages', s.page.errors.length === 0, s.page.errors.join('; '));
  await s.ctx.close();
  await c.ctx.close();
}
