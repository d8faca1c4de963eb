// An independent AS2 station built on libas2, for the interoperability test of server/edi/as2
// (TestLibas2Peer). It listens on loopback and reports on standard output, one JSON object a line:
//   {"event":"listening","url":...}
//   {"event":"message","messageId":...,"processed":bool,"content":...}   a message it received
//   {"event":"mdn","originalMessageId":...,"processed":bool,"mic":...}   an asynchronous MDN it received
//   {"event":"sent","messageId":...,"status":N,"mdn":{...}|null}          the outcome of a send
//   {"event":"error","error":...}
// Commands come on standard input, one JSON object a line: {"send":{"content":...,"filename":...,"async":bool}}.
// The configuration file (argument 1) holds its AS2 id, key and certificate (PEM), and the partner's AS2
// id, URL and certificate.
'use strict'
const fs = require('fs')
const http = require('http')
const readline = require('readline')
const { AS2Composer, AS2Parser, AS2Disposition, isMdn, request } = require('libas2')

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const emit = obj => process.stdout.write(JSON.stringify(obj) + '\n')
let selfURL = ''
const describe = err => (err && err.stack) || JSON.stringify(err) || String(err)

function agreement (asyncMDN) {
  return {
    host: {
      name: 'libas2 peer', id: cfg.id, url: selfURL, certificate: cfg.cert, privateKey: cfg.key,
      decrypt: true, sign: 'sha-256', mdn: { async: asyncMDN, signing: 'sha-256' }
    },
    partner: {
      name: 'einvoice', id: cfg.partnerId, url: cfg.partnerURL, file: 'XML', certificate: cfg.partnerCert,
      encrypt: 'aes256-CBC', verify: true, mdn: { async: false, signing: 'sha-256' }
    }
  }
}

function summary (d) {
  const n = d.notification
  return { originalMessageId: n.originalMessageId, processed: n.disposition.processed, mic: n.receivedContentMic || null }
}

async function readBody (req) {
  const chunks = []
  for await (const c of req) chunks.push(c)
  return Buffer.concat(chunks)
}

const server = http.createServer(async (req, res) => {
  try {
    const node = await AS2Parser.parse({ headers: req.rawHeaders, content: await readBody(req) })
    if (isMdn(node)) {
      const d = await AS2Disposition.incoming(node, { cert: cfg.partnerCert })
      emit({ event: 'mdn', ...summary(d) })
      res.end()
      return
    }
    const mdnURL = req.headers['receipt-delivery-option']
    const { contentNode, dispositionNode, disposition } = await AS2Disposition.outgoing({ node, agreement: agreement(!!mdnURL) })
    emit({
      event: 'message', messageId: node.messageId(), processed: disposition.notification.disposition.processed,
      content: contentNode ? contentNode.content.toString('utf8') : null
    })
    const { headers, body } = await dispositionNode.buildObject()
    if (mdnURL) {
      res.end()
      const r = await request({ url: mdnURL, headers, body, method: 'POST' })
      emit({ event: 'mdn-sent', status: r.statusCode })
    } else {
      res.writeHead(200, headers)
      res.end(body)
    }
  } catch (err) {
    emit({ event: 'error', error: describe(err) })
    res.statusCode = 500
    res.end()
  }
})

async function send (cmd) {
  const composer = new AS2Composer({
    message: { filename: cmd.filename, contentType: 'application/xml', content: cmd.content },
    agreement: agreement(!!cmd.async)
  })
  const options = await composer.toRequestOptions()
  const messageId = composer.message.messageId()
  const resp = await request(options)
  let mdn = null
  if (!cmd.async && resp.statusCode === 200) {
    mdn = summary(await AS2Disposition.incoming(await resp.mime(), { cert: cfg.partnerCert }))
  }
  emit({ event: 'sent', messageId, status: resp.statusCode, mdn })
}

server.listen(0, '127.0.0.1', () => {
  selfURL = `http://127.0.0.1:${server.address().port}/as2`
  emit({ event: 'listening', url: selfURL })
})

readline.createInterface({ input: process.stdin }).on('line', line => {
  const cmd = JSON.parse(line)
  if (cmd.send) send(cmd.send).catch(err => emit({ event: 'error', error: describe(err) }))
}).on('close', () => server.close())
