import t from 'tap'
import { EMAIL_CODE_BROWSER_COOKIE } from '../../../../server/reference/email-codes/browser-binding-cookie.js'
import {
  CODE_EMAILS_PER_ADDRESS, CODE_EMAILS_PER_RANGE, EMAIL_CODE_WINDOW_MS, TRIES_PER_CODE, WRONG_TRIES_PER_ADDRESS
} from '../../../../server/reference/email-codes/code-bounds.js'
import { Clock } from '../../../fixtures/account-changes/account-changes.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { codeCall, codeEmailsTo, emailedCode, signInByCode } from '../../../fixtures/email-codes/reference-email-codes.js'
import { outboxEmails } from '../../../fixtures/emails/outbox.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { auditEvents, logCollector, startReference } from '../../../fixtures/servers/reference.js'

/** A code of the alphabet that is not `code`. */
function otherThan (code: string, index = 0): string {
  const candidate = `${'ABCDEFGHJK'[index % 10]!.repeat(4)}-${'MNPQRSTUVW'[index % 10]!.repeat(4)}`
  return candidate === code ? 'ZZZZ-ZZZZ' : candidate
}

/** Waits until the emails sent after the answers have all been written (none pending for `ms`). */
async function settled (dataDir: string, ms = 300): Promise<number> {
  let count = -1
  for (;;) {
    const now = (await outboxEmails(dataDir)).length
    if (now === count) return now
    count = now
    await new Promise((resolve) => setTimeout(resolve, ms))
  }
}

t.test('a storm of code requests sends at most 5 emails an hour to an address, known or not, then 429 with retry_after', async (t) => {
  const clock = new Clock()
  const service = await startReference(t, { now: clock.now })
  await registerAccount(service.base, 'victim@example.com')
  for (const email of ['victim@example.com', 'nobody@example.com']) {
    const answers = []
    for (let index = 0; index < CODE_EMAILS_PER_ADDRESS + 3; index++) {
      answers.push(await codeCall(new ServiceBrowser(service.base), service, 'email-code/send', { email }))
      clock.passSeconds(60)
    }
    t.same(answers.map((answer) => answer.status), [200, 200, 200, 200, 200, 429, 429, 429], email)
    const refused = answers.at(-1)!
    t.same(refused.body, { error: 'Too many codes were asked for. Please wait 53 minutes and try again.', retry_after: 3180 },
      'when the first of the hour\'s five leaves the window')
    t.equal(refused.headers.getSetCookie().length, 0, 'no binding for a refused send')
  }
  await settled(service.dataDir)
  t.equal((await codeEmailsTo(service.dataDir, 'victim@example.com')).length, CODE_EMAILS_PER_ADDRESS, 'five emails to the account')
  t.equal((await codeEmailsTo(service.dataDir, 'nobody@example.com')).length, CODE_EMAILS_PER_ADDRESS, 'and five to the unknown address: the bound tells nothing')

  clock.value += EMAIL_CODE_WINDOW_MS
  t.equal((await codeCall(new ServiceBrowser(service.base), service, 'email-code/send', { email: 'victim@example.com' })).status, 200, 'an hour on, a code goes out again')
})

t.test('one address range asks for at most 30 code emails an hour, whatever the addresses', async (t) => {
  const service = await startReference(t)
  const statuses = []
  for (let index = 0; index <= CODE_EMAILS_PER_RANGE; index++) {
    statuses.push((await codeCall(new ServiceBrowser(service.base), service, 'email-code/send', { email: `spray-${index}@example.com` })).status)
  }
  t.same(statuses.filter((status) => status === 200).length, CODE_EMAILS_PER_RANGE)
  t.equal(statuses.at(-1), 429, 'the 31st address from the same range is refused')
  t.equal(await settled(service.dataDir), CODE_EMAILS_PER_RANGE, 'thirty emails, not one more')
})

t.test('five wrong tries void a code: the right one then opens nothing', async (t) => {
  const logs = logCollector()
  const service = await startReference(t, { logStream: logs.stream })
  const browser = new ServiceBrowser(service.base)
  await codeCall(browser, service, 'email-code/send', { email: 'guessed@example.com' })
  const { code } = await emailedCode(service.dataDir, 'guessed@example.com')
  for (let index = 0; index < TRIES_PER_CODE; index++) {
    const wrong = await codeCall(browser, service, 'email-code/login', { email: 'guessed@example.com', code: otherThan(code, index) })
    t.equal(wrong.body.reason, 'code_wrong', `wrong try ${index + 1}`)
  }
  const right = await codeCall(browser, service, 'email-code/login', { email: 'guessed@example.com', code })
  t.same([right.status, right.body.reason], [401, 'code_expired'], 'voided')
  t.match(logs.lines.find((line) => line.audit === 'email-code.voided'), { reason: 'code-tries-spent' })
})

t.test('guesses sent at once count as many tries: no more than five are compared', async (t) => {
  const service = await startReference(t)
  const browser = new ServiceBrowser(service.base)
  await codeCall(browser, service, 'email-code/send', { email: 'burst@example.com' })
  const { code } = await emailedCode(service.dataDir, 'burst@example.com')
  // Fewer than the address's ten, so that what stops the rest is the code's own bound.
  const answers = await Promise.all(Array.from({ length: WRONG_TRIES_PER_ADDRESS - 1 }, async (_, index) =>
    await codeCall(browser, service, 'email-code/login', { email: 'burst@example.com', code: otherThan(code, index) })))
  t.equal(answers.filter((answer) => answer.body.reason === 'code_wrong').length, TRIES_PER_CODE, 'five compared')
  t.equal(answers.filter((answer) => answer.body.reason === 'code_expired').length, WRONG_TRIES_PER_ADDRESS - 1 - TRIES_PER_CODE, 'the others refused uncompared')
  t.equal((await codeCall(browser, service, 'email-code/login', { email: 'burst@example.com', code })).body.reason, 'code_expired', 'and the code is void')
})

t.test('ten refused tries for an address within the hour: 429, and every code of it voided', async (t) => {
  const clock = new Clock()
  const logs = logCollector()
  const service = await startReference(t, { now: clock.now, logStream: logs.stream })
  const attacker = new ServiceBrowser(service.base)
  const owner = new ServiceBrowser(service.base)
  await codeCall(owner, service, 'email-code/send', { email: 'target@example.com' })
  const { code } = await emailedCode(service.dataDir, 'target@example.com')
  // The attacker asks for codes of his own to the owner's address: each gives him five tries, the address ten in all.
  const answers = []
  for (let round = 0; round < 3; round++) {
    await codeCall(attacker, service, 'email-code/send', { email: 'target@example.com' })
    for (let index = 0; index < TRIES_PER_CODE; index++) {
      answers.push(await codeCall(attacker, service, 'email-code/login', { email: 'target@example.com', code: otherThan(code, index) }))
    }
  }
  t.equal(answers.filter((answer) => answer.status === 401).length, WRONG_TRIES_PER_ADDRESS, 'ten refused')
  const throttled = answers.slice(WRONG_TRIES_PER_ADDRESS)
  t.ok(throttled.every((answer) => answer.status === 429 && typeof answer.body.retry_after === 'number'), 'then 429 with retry_after')
  t.match(throttled[0]!.body.error, /^Too many wrong codes were entered, so the codes sent no longer work\. Please wait \d+ minutes, then ask for a new code\.$/)
  const refusedOwner = await codeCall(owner, service, 'email-code/login', { email: 'target@example.com', code })
  t.equal(refusedOwner.status, 429, 'the right code too, meanwhile')
  t.match(logs.lines.find((line) => line.audit === 'email-code.voided' && line.reason === 'address-tries-spent'), { voided: Number })
  clock.value += EMAIL_CODE_WINDOW_MS
  const later = await codeCall(owner, service, 'email-code/login', { email: 'target@example.com', code })
  t.same([later.status, later.body.reason], [401, 'code_expired'], 'an hour on, the owner\'s code is void: it was voided with the others')
  t.equal((await signInByCode(owner, service, 'target@example.com')).status, 200, 'and a new one signs in')
})

t.test('a code relayed to another browser opens nothing there, and still works where it was asked for', async (t) => {
  const service = await startReference(t)
  await registerAccount(service.base, 'phished@example.com')
  const owner = new ServiceBrowser(service.base)
  await codeCall(owner, service, 'email-code/send', { email: 'phished@example.com' })
  const { code } = await emailedCode(service.dataDir, 'phished@example.com')

  const bare = await codeCall(new ServiceBrowser(service.base), service, 'email-code/login', { email: 'phished@example.com', code })
  t.same([bare.status, bare.body], [401, { error: 'This code was asked for in another browser. Enter it there, or ask for a new code here.', reason: 'code_other_browser' }],
    'a browser without the binding cookie')
  const phisher = new ServiceBrowser(service.base)
  await codeCall(phisher, service, 'email-code/send', { email: 'phished@example.com' })
  const relayed = await codeCall(phisher, service, 'email-code/login', { email: 'phished@example.com', code })
  t.same([relayed.status, relayed.body.reason], [401, 'code_other_browser'], 'a browser with a binding of its own')
  const forged = new ServiceBrowser(service.base)
  forged.keep(EMAIL_CODE_BROWSER_COOKIE, 'A'.repeat(43))
  t.equal((await codeCall(forged, service, 'email-code/login', { email: 'phished@example.com', code })).body.reason, 'code_other_browser', 'a made-up binding')
  t.equal((await codeCall(owner, service, 'email-code/login', { email: 'phished@example.com', code })).status, 200, 'the owner\'s browser signs in')
})

t.test('a binding tossed into the owner\'s browser (from a sibling subdomain) is not the one her code is bound to', async (t) => {
  const service = await startReference(t)
  const known = 'K'.repeat(43)
  const owner = new ServiceBrowser(service.base)
  owner.keep(EMAIL_CODE_BROWSER_COOKIE, known)
  await codeCall(owner, service, 'email-code/send', { email: 'tossed@example.com' })
  t.not(owner.value(EMAIL_CODE_BROWSER_COOKIE), known, 'each send binds anew')
  const { code } = await emailedCode(service.dataDir, 'tossed@example.com')
  const attacker = new ServiceBrowser(service.base)
  attacker.keep(EMAIL_CODE_BROWSER_COOKIE, known)
  t.equal((await codeCall(attacker, service, 'email-code/login', { email: 'tossed@example.com', code })).body.reason, 'code_other_browser')
  t.equal((await codeCall(owner, service, 'email-code/login', { email: 'tossed@example.com', code })).status, 200)
})

t.test('a new code from the same browser voids the one before; one address\'s code opens no other', async (t) => {
  const service = await startReference(t)
  const browser = new ServiceBrowser(service.base)
  await codeCall(browser, service, 'email-code/send', { email: 'first@example.com' })
  const { code: first } = await emailedCode(service.dataDir, 'first@example.com')
  t.equal((await codeCall(browser, service, 'email-code/login', { email: 'second@example.com', code: first })).body.reason, 'code_expired', 'not for another address')
  await codeCall(browser, service, 'email-code/send', { email: 'first@example.com' })
  const { code: second } = await emailedCode(service.dataDir, 'first@example.com', 2)
  t.equal((await codeCall(browser, service, 'email-code/login', { email: 'first@example.com', code: first })).body.reason, 'code_wrong', 'the first is void')
  t.equal((await codeCall(browser, service, 'email-code/login', { email: 'first@example.com', code: second })).status, 200)
})

t.test('codes and addresses never reach the log', async (t) => {
  const logs = logCollector()
  const service = await startReference(t, { logStream: logs.stream })
  const browser = new ServiceBrowser(service.base)
  const email = 'Private.Person@example.com'
  await codeCall(browser, service, 'email-code/send', { email })
  const { code } = await emailedCode(service.dataDir, 'Private.Person@example.com')
  await codeCall(browser, service, 'email-code/login', { email, code: otherThan(code) })
  t.equal((await codeCall(browser, service, 'email-code/login', { email, code })).status, 200)
  t.ok(auditEvents(logs).includes('email-code.login.succeeded'), 'the log was written')
  const text = logs.text()
  for (const secret of [code, code.replace('-', ''), otherThan(code), otherThan(code).replace('-', ''), 'private.person', 'Private.Person', browser.value(EMAIL_CODE_BROWSER_COOKIE)!]) {
    t.notOk(text.includes(secret), `never ${secret.length > 20 ? 'the binding' : secret}`)
  }
  t.ok(logs.lines.some((line) => line.audit === 'email-code.sent' && line.emailDomain === 'example.com' && typeof line.emailPseudonym === 'string'), 'a pseudonym and the domain instead')
})

t.test('a code mailed to one spelling of an address does not sign up another spelling of it', async (t) => {
  // Where a mailbox's local part is read case-sensitively (or a full-width form reaches another mailbox), the
  // holder of `VICTIM@` would otherwise make a verified account for `victim@`, and keep it when its owner came.
  const service = await startReference(t)
  const attacker = new ServiceBrowser(service.base)
  t.equal((await codeCall(attacker, service, 'email-code/send', { email: 'VICTIM@example.com' })).status, 200)
  const { code } = await emailedCode(service.dataDir, 'VICTIM@example.com')
  const answer = await codeCall(attacker, service, 'email-code/login', { email: 'victim@example.com', code })
  t.equal(answer.status, 401, 'refused for the other spelling')
  t.notOk('auth' in answer.body, 'no tokens')
  t.equal(await service.services.store.findAccountByEmail('victim@example.com'), null, 'no account made')
  const own = await codeCall(attacker, service, 'email-code/login', { email: 'VICTIM@example.com', code })
  t.equal(own.status, 200, 'the spelling it was mailed to signs up, as the page sends it (the address kept from the request)')
})
