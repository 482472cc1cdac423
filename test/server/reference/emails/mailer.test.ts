import { once } from 'node:events'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { auditEvents, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { outboxFiles, resetLinkOf } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

interface ReceivedMail { readonly from: string, readonly to: string[], readonly data: string }

/**
 * A small SMTP server on a loopback port (RFC 5321's plain dialogue, no TLS
 * offered): it keeps what it receives, and refuses recipients `refuse` names.
 */
async function smtpServer (t: Test, refuse: (recipient: string) => boolean = () => false) {
  const received: ReceivedMail[] = []
  const waiting: Array<() => void> = []
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let buffer = ''
    let inData = false
    let mail = { from: '', to: [] as string[], data: '' }
    const reply = (line: string) => socket.write(`${line}\r\n`)
    reply('220 smtp.test ESMTP')
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1')
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n')
          if (end === -1) return
          mail.data = buffer.slice(0, end).replace(/^\.\./gm, '.')
          buffer = buffer.slice(end + 5)
          inData = false
          received.push(mail)
          mail = { from: '', to: [], data: '' }
          reply('250 2.0.0 queued')
          waiting.splice(0).forEach((wake) => wake())
          continue
        }
        const newline = buffer.indexOf('\r\n')
        if (newline === -1) return
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 2)
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'EHLO' || verb === 'HELO') reply('250 smtp.test')
        else if (verb === 'MAIL') { mail.from = /<(.*)>/.exec(line)?.[1] ?? ''; reply('250 2.1.0 ok') }
        else if (verb === 'RCPT') {
          const recipient = /<(.*)>/.exec(line)?.[1] ?? ''
          if (refuse(recipient)) reply(`550 5.1.1 <${recipient}>: Recipient address rejected`)
          else { mail.to.push(recipient); reply('250 2.1.5 ok') }
        } else if (verb === 'DATA') { inData = true; reply('354 go ahead') }
        else if (verb === 'RSET') { mail = { from: '', to: [], data: '' }; reply('250 ok') }
        else if (verb === 'QUIT') { reply('221 bye'); socket.end() }
        else reply('502 5.5.2 not implemented')
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy()
    server.close(() => resolve())
  }))
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async nextMail (count: number): Promise<ReceivedMail> {
      while (received.length < count) await new Promise<void>((resolve) => waiting.push(resolve))
      return received[count - 1]!
    }
  }
}

function decodeQuotedPrintable (text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}

t.test('with SMTP_URL set, the reset email goes through SMTP and not into the outbox', async (t) => {
  const smtp = await smtpServer(t)
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Accounts <accounts@example.test>' }, logStream: logs.stream })
  await registerAccount(base, 'smtp.user@example.com')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'smtp.user@example.com' })
  // Registration sent its verification link first; the two may arrive in either order.
  await smtp.nextMail(2)
  const mail = smtp.received.find((received) => /^Subject: Reset your /m.test(received.data))!
  t.ok(smtp.received.some((received) => /^Subject: Verify your email address/m.test(received.data)), 'the verification link went by SMTP too')
  t.equal(mail.from, 'accounts@example.test', 'from MAIL_FROM')
  t.same(mail.to, ['smtp.user@example.com'])
  t.match(mail.data, /^Subject: Reset your Threshold password\r$/m)
  const { link } = resetLinkOf({ file: 'smtp', raw: mail.data, decoded: decodeQuotedPrintable(mail.data) })
  t.ok(link.startsWith(`${TEST_PUBLIC_URL}/?view=setPassword&token=`))
  const sent = await logs.waitFor((line) => line.audit === 'reset.email-sent')
  t.type(sent.smtpMessageId, 'string', 'the log keeps the SMTP message id')
  t.same(await outboxFiles(dataDir), [])
})

t.test('when SMTP refuses the email the visitor\'s answer is unchanged, and the log holds the failure but not the address', async (t) => {
  const smtp = await smtpServer(t, () => true)
  const logs = logCollector()
  const { base } = await startReference(t, { env: { SMTP_URL: smtp.url }, logStream: logs.stream })
  await registerAccount(base, 'refused.recipient@example.com')
  const answer = await postJson(base, '/accounts/resetPasswordRequest', { email: 'refused.recipient@example.com' })
  t.same([answer.status, answer.body], [200, {
    success: 'If an account exists for this email, we have sent it a link to reset the password. The link works once, within 30 minutes.'
  }])
  const failure = await logs.waitFor((line) => line.msg === 'the password reset email could not be sent')
  t.equal(failure.level, 50, 'logged as an error')
  t.equal(failure.code, 'EENVELOPE', 'with what went wrong')
  t.equal(failure.responseCode, 550)
  t.notOk(logs.text().includes('refused.recipient'), 'the address is not in the log')
  t.notOk(auditEvents(logs).includes('reset.email-sent'))
})

t.test('without SMTP_URL each email is an .eml file in DATA_DIR/outbox, one per message', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'outbox@example.com')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'outbox@example.com' })
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'outbox@example.com' })
  const deadline = Date.now() + 5000
  while ((await outboxFiles(dataDir)).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
  const files = await outboxFiles(dataDir)
  t.equal(files.length, 3, 'the verification link and two reset links')
  t.ok(files.every((file) => /\/outbox\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{8}\.eml$/.test(file)), 'named by time, never overwritten')
})
