import Database from 'better-sqlite3'
import { decodeJwt } from 'jose'
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { ACR, acrOf } from '../../../../server/reference/oidc/acr.js'
import { Clock, CHROME_ON_WINDOWS, enrolAuthenticator, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { codeCall, codeEmailsTo, emailedCode, signInByCode } from '../../../fixtures/email-codes/reference-email-codes.js'
import { waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount, verifyAddress } from '../../../fixtures/registration/registration.js'
import { auditEvents, logCollector, startReference } from '../../../fixtures/servers/reference.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

const SENT = { success: 'Check your email: we have sent a code to this address. It works once, within 10 minutes, in this browser only.', expires_in: 600 }

/** Every table's row count in the service's SQLite file, read beside it. */
function rowCounts (dataDir: string): Record<string, number> {
  const db = new Database(join(dataDir, 'accounts.sqlite'), { readonly: true })
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((row) => row.name)
    return Object.fromEntries(tables.map((table) => [table, (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n]))
  } finally {
    db.close()
  }
}

function delta (before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).filter((table) => after[table] !== before[table]).map((table) => [table, after[table]! - (before[table] ?? 0)]))
}

t.test('an account signs in with a code emailed to it, in the browser that asked: amr email, acr 1fa', async (t) => {
  const logs = logCollector()
  const service = await startReference(t, { logStream: logs.stream })
  const registering = await registerAccount(service.base, 'Ada@example.com')
  await verifyAddress(service.base, service.dataDir, 'Ada@example.com', registering)
  const browser = new ServiceBrowser(service.base, { 'user-agent': CHROME_ON_WINDOWS })

  const sent = await codeCall(browser, service, 'email-code/send', { email: 'ada@EXAMPLE.com' })
  t.same([sent.status, sent.body], [200, SENT])
  t.equal(sent.headers.get('cache-control'), 'no-store')
  const cookie = sent.headers.getSetCookie().find((line) => line.startsWith('email_code_browser='))
  t.match(cookie, /^email_code_browser=[\w-]{43}; Max-Age=600; Path=\/; HttpOnly; (Secure; )?SameSite=Lax$/, 'the binding cookie: HttpOnly, Lax, the whole site, as long as the code')

  const { code, email } = await emailedCode(service.dataDir, 'Ada@example.com')
  t.match(email.raw, /^Subject: Your Threshold sign-in code$/m, 'the subject says what it is, without the code')
  t.notMatch(/^Subject: .*$/m.exec(email.raw)![0], code.replace('-', ''), 'never the code in the subject')
  t.match(email.decoded, new RegExp(`\\n\\n${code}\\n\\n`), 'the code on a line of its own in the text part')
  t.match(email.decoded, /font-size:2em[^>]*>[A-Z2-9]{4}-[A-Z2-9]{4}</, 'and large in the HTML part')
  t.match(email.decoded, /within 10 minutes, and only in the browser where it was asked for/)
  t.match(email.decoded, /Asked for from Chrome on Windows, [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d\s[AP]M UTC\./, 'which browser asked, and when')
  t.match(email.decoded, /Never give this code to anyone\. Threshold never asks you for it/)

  const answer = await codeCall(browser, service, 'email-code/login', { email: 'ada@example.com', code: ` ${code.toLowerCase().replace('-', ' ')} ` })
  t.equal(answer.status, 200, 'typed in any case, with spaces')
  t.notOk('registered' in answer.body, 'no account was made')
  const claims = decodeJwt(String(answer.body.auth))
  t.same(claims.amr, ['email'], 'the token says how: an emailed code')
  t.equal(acrOf(claims.amr as string[]), ACR.oneFactor, 'one factor for the OpenID Connect provider')
  t.ok(browser.value('threshold_browser'), 'the known-browser cookie')
  t.ok(browser.value('threshold_proof'), 'the sign-in is a fresh proof')
  t.same(auditEvents(logs).filter((event) => event.startsWith('email-code.')), ['email-code.sent', 'email-code.email-sent', 'email-code.login.succeeded'])
  t.equal((await postJson(service.base, '/accounts/token/refresh', { refresh: answer.body.refresh })).status, 200, 'its refresh token works')
  const figures = await service.services.metrics.text()
  t.match(figures, /threshold_reference_sign_ins_total\{method="email_code",outcome="success"\} 1\n/, 'counted as an emailed code\'s sign-in')
  t.match(figures, /threshold_reference_emails_total\{kind="email_code",outcome="sent"\} 1\n/)
})

t.test('an unknown address signs up with its code: an account without a password, its address verified', async (t) => {
  const logs = logCollector()
  const service = await startReference(t, { logStream: logs.stream })
  const browser = new ServiceBrowser(service.base)
  const answer = await signInByCode(browser, service, 'new.person@example.com')
  t.equal(answer.status, 200)
  t.equal(answer.body.registered, true, 'the answer says the code made the account')
  const email = (await codeEmailsTo(service.dataDir, 'new.person@example.com'))[0]!
  t.match(email.raw, /^Subject: Your code to create a Threshold account$/m)
  t.match(email.decoded, /Entering this code creates the account/)
  const account = await service.services.store.findAccountByEmail('new.person@example.com')
  t.equal(account?.passwordHash, null, 'no password')
  t.type(account?.emailVerifiedAt, 'number', 'the address is verified: the code proved it')
  t.ok(auditEvents(logs).includes('email-code.registered'))
  t.same(decodeJwt(String(answer.body.auth)).amr, ['email'])

  const again = await signInByCode(new ServiceBrowser(service.base), service, 'new.person@example.com')
  t.equal(again.status, 200)
  t.notOk('registered' in again.body, 'the next code signs in to the same account')
  t.match((await codeEmailsTo(service.dataDir, 'new.person@example.com'))[1]!.raw, /^Subject: Your Threshold sign-in code$/m)
})

t.test('a known and an unknown address get the same answer, after the same store work', async (t) => {
  const service = await startReference(t)
  await registerAccount(service.base, 'known@example.com')
  const answers = []
  const work = []
  for (const email of ['known@example.com', 'unknown@example.com']) {
    const before = rowCounts(service.dataDir)
    const answer = await codeCall(new ServiceBrowser(service.base), service, 'email-code/send', { email })
    work.push(delta(before, rowCounts(service.dataDir)))
    answers.push({ status: answer.status, body: answer.body, cookie: answer.headers.getSetCookie().map((line) => line.replace(/=[\w-]{43};/, '=…;')) })
  }
  t.same(answers[0], answers[1], 'status, text and cookie alike')
  t.same(work[0], work[1], 'the same rows written')
  t.same(work[0], { email_codes: 1 }, 'one code, and nothing else')
  await emailedCode(service.dataDir, 'known@example.com')
  await emailedCode(service.dataDir, 'unknown@example.com')
})

t.test('a wrong code is refused as code_wrong; the right one then still works', async (t) => {
  const service = await startReference(t)
  const browser = new ServiceBrowser(service.base)
  await codeCall(browser, service, 'email-code/send', { email: 'wrong@example.com' })
  const { code } = await emailedCode(service.dataDir, 'wrong@example.com')
  const other = code.startsWith('A') ? 'BBBB-BBBB' : 'AAAA-AAAA'
  const wrong = await codeCall(browser, service, 'email-code/login', { email: 'wrong@example.com', code: other })
  t.same([wrong.status, wrong.body], [401, { error: 'This code is not right. Check the email and try again.', reason: 'code_wrong' }])
  t.equal((await codeCall(browser, service, 'email-code/login', { email: 'wrong@example.com', code })).status, 200)
})

t.test('a code that is not one is refused before it is tried, in the visitor\'s language', async (t) => {
  const service = await startReference(t)
  const browser = new ServiceBrowser(service.base, { 'accept-language': 'de' })
  for (const [body, error] of [
    [{ email: 'x@example.com' }, 'Geben Sie den Code ein, den wir Ihnen per E-Mail gesendet haben.'],
    [{ email: 'x@example.com', code: 'ABCD-EFG0' }, 'Ein Code besteht aus 8 Buchstaben und Ziffern, etwa ABCD-EFGH.'],
    [{ email: 'x@example.com', code: 12345678 }, 'Geben Sie den Code ein, den wir Ihnen per E-Mail gesendet haben.'],
    [{ email: 'not an address', code: 'ABCD-EFGH' }, 'Geben Sie eine gültige E-Mail-Adresse ein.']
  ] as const) {
    const answer = await codeCall(browser, service, 'email-code/login', body)
    t.same([answer.status, answer.body], [400, { error }], JSON.stringify(body))
  }
  const send = await codeCall(browser, service, 'email-code/send', { email: 'nope' })
  t.same([send.status, send.body], [400, { error: 'Geben Sie eine gültige E-Mail-Adresse ein.' }], 'no code for what is not an address')
  const purpose = await codeCall(browser, service, 'email-code/send', { email: 'x@example.com', purpose: 'sign-up' })
  t.equal(purpose.status, 400, 'an unknown purpose')
  t.equal(purpose.headers.getSetCookie().length, 0, 'and no cookie with a refusal')
})

t.test('a code expires after 10 minutes', async (t) => {
  const clock = new Clock()
  const service = await startReference(t, { now: clock.now })
  const browser = new ServiceBrowser(service.base)
  await codeCall(browser, service, 'email-code/send', { email: 'late@example.com' })
  const { code } = await emailedCode(service.dataDir, 'late@example.com')
  clock.passSeconds(601)
  const answer = await codeCall(browser, service, 'email-code/login', { email: 'late@example.com', code })
  t.same([answer.status, answer.body], [401, { error: 'This code has expired or was already used. Ask for a new one.', reason: 'code_expired' }])
  t.equal(await service.services.store.findAccountByEmail('late@example.com'), null, 'no account was made')
})

t.test('a code works once', async (t) => {
  const service = await startReference(t)
  const browser = new ServiceBrowser(service.base)
  await codeCall(browser, service, 'email-code/send', { email: 'once@example.com' })
  const { code } = await emailedCode(service.dataDir, 'once@example.com')
  t.equal((await codeCall(browser, service, 'email-code/login', { email: 'once@example.com', code })).status, 200)
  const reused = await codeCall(browser, service, 'email-code/login', { email: 'once@example.com', code })
  t.same([reused.status, reused.body.reason], [401, 'code_expired'])
})

t.test('the second factor still follows the code: amr email, otp, mfa and acr mfa after it', async (t) => {
  const clock = new Clock()
  const service = await startReference(t, { now: clock.now })
  const owner = await signedInOwner(service, 'two@example.com')
  const { secret } = await enrolAuthenticator(owner, clock)
  const browser = new ServiceBrowser(service.base)
  const challenged = await signInByCode(browser, service, 'two@example.com')
  t.equal(challenged.status, 200)
  t.equal(challenged.body.second_factor, 'code', 'the code step, as after a password')
  t.notOk('auth' in challenged.body, 'no tokens for the emailed code alone')
  clock.passSeconds(30)
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.value })
  const verified = await browser.post('second-factor/verify', { challenge: challenged.body.challenge, code })
  t.equal(verified.status, 200)
  const amr = decodeJwt(String(verified.body.auth)).amr as string[]
  t.same(amr, ['email', 'otp', 'mfa'])
  t.equal(acrOf(amr), ACR.multiFactor)
})

t.test('a never verified account is claimed by the code: its password stops working and its sessions end', async (t) => {
  const logs = logCollector()
  const service = await startReference(t, { logStream: logs.stream })
  await registerAccount(service.base, 'squatted@example.com')
  const squatter = await postLogin(service.base, 'squatted@example.com')
  t.equal(squatter.status, 200, 'whoever registered the address signs in with the password meanwhile')

  const owner = await signInByCode(new ServiceBrowser(service.base), service, 'squatted@example.com')
  t.equal(owner.status, 200)
  t.notOk('registered' in owner.body, 'the account was there')
  t.equal((await postLogin(service.base, 'squatted@example.com')).status, 401, 'the password set before no longer signs in')
  t.equal((await postJson(service.base, '/accounts/token/refresh', { refresh: squatter.body.refresh })).status, 401, 'the squatter\'s session has ended')
  const account = await service.services.store.findAccountByEmail('squatted@example.com')
  t.equal(account?.passwordHash, null)
  t.type(account?.emailVerifiedAt, 'number')
  t.match(logs.lines.find((line) => line.audit === 'account.claimed'), { via: 'emailed-code', passwordRemoved: true })
})

t.test('organisations: a code signs in only where the account is a member', async (t) => {
  const service = await startReference(t)
  await registerAccount(service.base, 'member@example.com')
  const refused = await signInByCode(new ServiceBrowser(service.base), service, 'member@example.com', { insecure_allowed_orgs: ['acme'] })
  t.same([refused.status, refused.body], [403, { error: 'Your account is not a member of an organisation allowed here.' }])
  const unknown = await signInByCode(new ServiceBrowser(service.base), service, 'stranger@example.com', { insecure_allowed_orgs: ['acme'] })
  t.same([unknown.status, unknown.body], [403, { error: 'Your account is not a member of an organisation allowed here.' }], 'an address without an account is refused alike')
  t.equal(await service.services.store.findAccountByEmail('stranger@example.com'), null, 'and no account is made for a sign-in that could not succeed')
})

t.test('with EMAIL_CODES=false the calls are not served, and reauthenticate reads no emailed code', async (t) => {
  const service = await startReference(t, { env: { EMAIL_CODES: 'false' } })
  t.equal(service.services.config.emailCodes.enabled, false)
  const browser = new ServiceBrowser(service.base)
  for (const path of ['email-code/send', 'email-code/login']) {
    t.equal((await codeCall(browser, service, path, { email: 'off@example.com', code: 'ABCD-EFGH' })).status, 404, path)
  }
  await registerAccount(service.base, 'off@example.com')
  const bearer = await browser.bearerAfterSignIn('off@example.com')
  const answer = await codeCall(browser, service, 'reauthenticate', { email_code: 'ABCD-EFGH' }, bearer)
  t.same([answer.status, answer.body], [400, { error: 'Enter your password or a code to confirm it\'s you.' }])
})

t.test('the answer and the email speak the visitor\'s language; the code reads left to right in Arabic', async (t) => {
  const service = await startReference(t)
  const browser = new ServiceBrowser(service.base, { 'accept-language': 'ar' })
  const sent = await codeCall(browser, service, 'email-code/send', { email: 'arabic@example.com' })
  t.equal(sent.body.success, 'تحقق من بريدك: أرسلنا رمزًا إلى هذا العنوان. يعمل مرة واحدة، خلال 10 دقائق، وفي هذا المتصفح فقط.')
  // The only email of this test: its subject is MIME-encoded, which the outbox's subject patterns do not read.
  const email = await waitForEmail(service.dataDir, 1)
  t.notMatch(email.raw.slice(0, email.raw.indexOf('\n\n')), /\b[A-Z2-9]{4}-[A-Z2-9]{4}\b/, 'no header reads as a code (the Message-ID among them)')
  const code = /\b([A-Z2-9]{4}-[A-Z2-9]{4})\b/.exec(email.decoded)![1]!
  t.match(email.decoded, /<html lang="ar" dir="rtl">/)
  t.match(email.decoded, `<span dir="ltr"`)
  t.match(email.decoded, 'إدخال هذا الرمز ينشئ الحساب')
  const wrong = await codeCall(browser, service, 'email-code/login', { email: 'arabic@example.com', code: code.startsWith('A') ? 'BBBB-BBBB' : 'AAAA-AAAA' })
  t.same(wrong.body, { error: 'هذا الرمز غير صحيح. راجع الرسالة وحاول مرة أخرى.', reason: 'code_wrong' })
})
