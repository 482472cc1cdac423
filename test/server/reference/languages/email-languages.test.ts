import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import englishEmails from '../../../../server/reference/emails/messages/en.json' with { type: 'json' }
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { waitForEmail } from '../../../fixtures/emails/outbox.js'

/**
 * The emails' texts in `locale` as the translator wrote them, English's
 * where that language's file is not there yet (what the service falls back to).
 */
function emailTexts (locale: string): Record<string, string> {
  const file = new URL(`../../../../server/reference/emails/messages/${locale}.json`, import.meta.url)
  return existsSync(file) ? { ...englishEmails, ...JSON.parse(readFileSync(file, 'utf8')) as Record<string, string> } : englishEmails
}

const fill = (text: string, params: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (whole, name: string) => String(params[name] ?? whole))

t.test('a registration asked in German writes a German verification email, lang and dir on its HTML', async (t) => {
  const reference = await startReference(t)
  const answer = await postJson(reference.base, '/accounts/register', { email: 'ada@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' })
  t.equal(answer.status, 200)
  const email = await waitForEmail(reference.dataDir, 1)
  t.match(email.decoded, '<html lang="de" dir="ltr">')
  const german = emailTexts('de')
  t.ok(email.decoded.includes(fill(german['addressVerification.intro']!, { product: 'Threshold' })), 'the German text (English until de.json lands)')
  t.ok(email.decoded.includes(`${german.greeting}\n`), 'greeted in German')
})

t.test('a reset asked in Arabic is written right to left; one asked in no shipped language is English', async (t) => {
  const reference = await startReference(t)
  await registerAccount(reference.base, 'ada@example.com')
  await waitForEmail(reference.dataDir, 1)
  t.match((await waitForEmail(reference.dataDir, 1)).decoded, '<html lang="en" dir="ltr">', 'no Accept-Language: English')

  await postJson(reference.base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' }, { 'accept-language': 'ar' })
  const arabic = await waitForEmail(reference.dataDir, 2)
  t.match(arabic.decoded, '<html lang="ar" dir="rtl">')
  t.ok(arabic.decoded.includes(fill(emailTexts('ar')['passwordReset.intro']!, { product: 'Threshold' })))

  await postJson(reference.base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' }, { 'accept-language': 'sw, ga;q=0.5' })
  const english = await waitForEmail(reference.dataDir, 3)
  t.match(english.decoded, '<html lang="en" dir="ltr">')
  t.ok(english.decoded.includes(fill(englishEmails['passwordReset.intro'], { product: 'Threshold' })))
})

t.test('an emailed link carries its email\'s language, and the page it leads to speaks it, whatever the browser\'s', async (t) => {
  const reference = await startReference(t)
  const registered = await postJson(reference.base, '/accounts/register', { email: 'ada@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, { 'accept-language': 'de' })
  // Opened in the browser she registered in (server/reference/registration/email-verification.ts).
  const browser = registered.headers.getSetCookie().map((line) => /^(threshold_browser=[^;]*)/.exec(line)?.[1]).find((pair) => pair !== undefined)!
  const verification = await waitForEmail(reference.dataDir, 1)
  const link = /https?:\/\/[^\s"<>]*\/accounts\/verifyEmail\?token=[\w-]+&ui_locales=de(?=[\s"<])/.exec(verification.decoded)?.[0]
  t.ok(link, 'the verification link names German')
  const landing = await fetch(link!.replace(/^https?:\/\/[^/]+/, reference.base), { redirect: 'manual', headers: { 'accept-language': 'en-GB,en', cookie: browser } })
  t.equal(landing.status, 303)
  t.match(landing.headers.get('location'), /\?view=login&notice=email-verified&ui_locales=de$/, 'an English browser lands on the German page')

  await postJson(reference.base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' }, { 'accept-language': 'ar' })
  const reset = await waitForEmail(reference.dataDir, 2)
  t.match(reset.decoded, /\?view=setPassword&(amp;)?token=[\w-]+&(amp;)?ui_locales=ar/, 'the reset link names Arabic')
})
