import t from 'tap'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { accountsLinkOf, outboxEmails, resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { addPasskey, CHROME_ON_WINDOWS, Clock, enrolAuthenticator, signedInOwner, waitForSubject } from '../../../fixtures/account-changes/account-changes.js'

/*
 * The owner hears about every change to how her account signs in
 * (docs/account-changes.md): an email in the language of the page the
 * change was made from, naming it, when, the browser and the network
 * address, with a "this wasn't me" link; sent after the answer; logged
 * without its link.
 */

const GERMAN_CHROME = { 'user-agent': CHROME_ON_WINDOWS, 'accept-language': 'de-DE,de;q=0.9' }

t.test('a passkey added, prompt-less or not, is told to its owner in her language, with its name, when and where from', async (t) => {
  const logs = logCollector()
  const clock = new Clock()
  const { base, dataDir } = await startReference(t, { now: clock.now, logStream: logs.stream })
  const owner = await signedInOwner({ base, dataDir }, 'ada@example.com', { headers: GERMAN_CHROME })
  const prompted = await addPasskey(owner)
  t.equal(prompted.status, 200)
  const [email] = await waitForSubject(dataDir, /^Neuer Passkey in Ihrem Konto bei Threshold$/)
  t.match(email!.raw, /^To: ada@example\.com$/m)
  t.match(email!.decoded, /Passkey mit dem Namen „Chrome on Windows“ hinzugefügt/, 'named as it is listed: the browser it was made in')
  // As German writes a date and a time (server/reference/emails/email-moment.ts), in UTC.
  const date = new Intl.DateTimeFormat('de', { dateStyle: 'long', timeZone: 'UTC' }).format(clock.value)
  const time = new Intl.DateTimeFormat('de', { timeStyle: 'short', timeZone: 'UTC' }).format(clock.value)
  t.ok(email!.decoded.includes(`Zeitpunkt: ${date} um ${time} UTC. Browser: Chrome unter Windows. Netzwerkadresse: 127.0.0.1.`), 'when, the browser and the address')
  t.match(email!.decoded, /Sobald Sie es speichern, wird dieser Passkey entfernt/, 'saving a new password undoes it, not opening the link')
  const { link, token } = accountsLinkOf(email!, 'undoChange')
  t.ok(link.startsWith(`${TEST_PUBLIC_URL}/accounts/undoChange?token=`))
  t.ok(email!.decoded.includes(`${link}&ui_locales=de`), 'the page it leads to speaks German too')
  t.match(email!.decoded, /innerhalb von 7 Tagen/)

  // The automatic one right after a sign-in is told too: it is a way into the account all the same.
  const again = await signedInOwner({ base, dataDir }, 'ada@example.com', { headers: GERMAN_CHROME, registered: true })
  t.equal((await addPasskey(again, true)).status, 200)
  const emails = await waitForSubject(dataDir, /^Neuer Passkey/, 2)
  t.not(accountsLinkOf(emails[1]!, 'undoChange').token, token, 'each change has a link of its own')

  await logs.waitFor((line) => line.audit === 'change.notice-sent' && line.change === 'passkey-added')
  t.notOk(logs.text().includes(token), 'the log never holds the link\'s token')
  t.equal(auditEvents(logs).filter((event) => event === 'change.notice-sent').length, 2)
})

t.test('a passkey removed, the authenticator app set up and turned off, new recovery codes and a new password each email the owner', async (t) => {
  const clock = new Clock()
  const { base, dataDir } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'bea@example.com', { headers: { 'user-agent': CHROME_ON_WINDOWS } })
  const passkey = await addPasskey(owner)
  t.equal((await owner.browser.post('passkeys/remove', { id: passkey.id }, owner.bearer)).status, 200)
  const removed = await waitForEmail(dataDir, 1, 'passkeyRemoved')
  t.match(removed.decoded, /The passkey named “Chrome on Windows” was removed from your Threshold account\. It can no longer sign in:/)
  t.match(removed.decoded, /If it was not, open this link and choose a new password: saving it signs your account out everywhere\./, 'nothing to undo: the link secures the account')
  accountsLinkOf(removed, 'undoChange')

  await enrolAuthenticator(owner, clock)
  const on = await waitForEmail(dataDir, 1, 'secondFactorOn')
  t.match(on.decoded, /An authenticator app was set up as the second factor of your Threshold account\./)
  t.match(on.decoded, /saving it removes that authenticator app and its recovery codes and signs your account out everywhere/)
  t.equal((await owner.browser.post('second-factor/recovery-codes', {}, owner.bearer)).status, 200)
  t.match((await waitForEmail(dataDir, 1, 'recoveryCodes')).decoded, /The earlier ones no longer work:/)
  t.equal((await owner.browser.post('second-factor/remove', {}, owner.bearer)).status, 200)
  t.match((await waitForEmail(dataDir, 1, 'secondFactorOff')).decoded, /Sign-ins no longer ask for its codes:/)

  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email: 'bea@example.com' })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  t.equal((await postJson(base, '/accounts/resetPassword', { token, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })).status, 200)
  const changed = await waitForEmail(dataDir, 1, 'passwordChanged')
  t.match(changed.decoded, /The password of your Threshold account was changed:\s+When: /)
  accountsLinkOf(changed, 'undoChange')
  t.equal((await outboxEmails(dataDir)).filter((email) => /undoChange\?token=/.test(email.decoded)).length, 6, 'one email a change, each with its link')
})

t.test('a refused change tells nobody', async (t) => {
  const { base, dataDir } = await startReference(t)
  const owner = await signedInOwner({ base, dataDir }, 'cy@example.com')
  t.equal((await owner.browser.post('passkeys/remove', { id: 'bm90LWhlcmU' }, owner.bearer)).status, 404)
  t.equal((await owner.browser.post('second-factor/remove', {}, owner.bearer)).status, 404)
  t.equal((await owner.browser.post('second-factor/recovery-codes', {}, owner.bearer)).status, 404)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.same((await outboxEmails(dataDir)).filter((email) => /undoChange/.test(email.decoded)), [])
})
