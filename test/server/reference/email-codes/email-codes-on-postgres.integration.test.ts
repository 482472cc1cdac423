import t from 'tap'
import { decodeJwt } from 'jose'
import { CODE_EMAILS_PER_ADDRESS, TRIES_PER_CODE } from '../../../../server/reference/email-codes/code-bounds.js'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { codeCall, emailedCode } from '../../../fixtures/email-codes/reference-email-codes.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { startReference } from '../../../fixtures/servers/reference.js'

// With DATABASE_URL several instances share the codes and their bounds: a code asked for through one
// signs in through another, once, and the tries and sends are counted across them.
t.test('emailed codes with DATABASE_URL, across two instances', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const databaseUrl = await server.createDatabase()
  const first = await startReference(t, { env: { DATABASE_URL: databaseUrl } })
  const second = await startReference(t, { env: { DATABASE_URL: databaseUrl }, dataDir: first.dataDir })
  t.ok(first.services.store instanceof PostgresAccountStore)

  const browser = new ServiceBrowser(first.base)
  t.equal((await codeCall(browser, first, 'email-code/send', { email: 'shared@example.com' })).status, 200)
  const { code } = await emailedCode(first.dataDir, 'shared@example.com')
  const signedIn = await codeCall(browser, second, 'email-code/login', { email: 'shared@example.com', code })
  t.equal(signedIn.status, 200, 'asked through one instance, signed in through the other')
  t.equal(signedIn.body.registered, true)
  t.same(decodeJwt(String(signedIn.body.auth)).amr, ['email'])
  t.equal((await codeCall(browser, first, 'email-code/login', { email: 'shared@example.com', code })).body.reason, 'code_expired', 'spent on every instance')

  await codeCall(browser, first, 'email-code/send', { email: 'shared@example.com' })
  const { code: next } = await emailedCode(first.dataDir, 'shared@example.com', 2)
  const tries = []
  for (let index = 0; index < TRIES_PER_CODE; index++) {
    tries.push((await codeCall(browser, index % 2 === 0 ? first : second, 'email-code/login', { email: 'shared@example.com', code: `${'ABCDEFGHJK'[index]!.repeat(4)}-2222` })).body.reason)
  }
  t.same(tries, Array(TRIES_PER_CODE).fill('code_wrong'), 'wrong tries on both instances')
  t.equal((await codeCall(browser, second, 'email-code/login', { email: 'shared@example.com', code: next })).body.reason, 'code_expired', 'count toward one bound')

  const sends = []
  for (let index = 0; index < CODE_EMAILS_PER_ADDRESS; index++) {
    sends.push((await codeCall(new ServiceBrowser(first.base), index % 2 === 0 ? first : second, 'email-code/send', { email: 'shared@example.com' })).status)
  }
  t.same(sends, [200, 200, 200, 429, 429], 'five sends an hour to the address, whichever instance asked')
})
