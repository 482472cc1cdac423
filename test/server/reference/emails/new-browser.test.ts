import t from 'tap'
import { identifyBrowser } from '../../../../server/reference/known-browsers/browser-names.js'
import { emailMessages } from '../../../../server/reference/emails/email-messages.js'
import { newBrowserEmail } from '../../../../server/reference/emails/new-browser.js'

const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0'
const SOME_LINUX_BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Unheard/1.0'

function browserLine (locale: 'en' | 'de' | 'ja' | 'ar', userAgent: string | undefined): string {
  const email = newBrowserEmail({
    to: 'ada@example.com',
    productName: 'Threshold',
    facts: { at: new Date('2026-11-26T08:30:00Z'), browser: identifyBrowser(userAgent), address: '192.0.2.7' },
    link: 'https://signin.example.com/accounts/endSessions?token=x',
    validDays: 7,
    messages: emailMessages(locale)
  })
  return email.text
}

t.test('the browser is named in the email\'s language: the names stay, the words around them are translated', async (t) => {
  t.match(browserLine('en', FIREFOX_ON_WINDOWS), 'Browser: Firefox on Windows.')
  t.match(browserLine('de', FIREFOX_ON_WINDOWS), 'Firefox unter Windows')
  t.notMatch(browserLine('de', FIREFOX_ON_WINDOWS), ' on Windows', 'no English inside the German sentence')
  t.match(browserLine('ja', FIREFOX_ON_WINDOWS), 'Windows の Firefox')
  t.match(browserLine('ar', FIREFOX_ON_WINDOWS), 'Firefox على Windows')
})

t.test('the moment is written as the email\'s language writes dates and times, in UTC', async (t) => {
  t.match(browserLine('en', FIREFOX_ON_WINDOWS), /When: November 26, 2026 at 8:30\sAM UTC\./)
  t.match(browserLine('de', FIREFOX_ON_WINDOWS), '26. November 2026 um 08:30 UTC')
  t.match(browserLine('ja', FIREFOX_ON_WINDOWS), '2026年11月26日')
  t.notMatch(browserLine('de', FIREFOX_ON_WINDOWS), '2026-11-26', 'no ISO date left')
})

t.test('a browser we cannot name, and no User-Agent at all, are said in the email\'s language too', async (t) => {
  t.match(browserLine('de', SOME_LINUX_BROWSER), 'ein Browser unter Linux')
  t.match(browserLine('de', undefined), 'ein unbekannter Browser')
  t.match(browserLine('en', undefined), 'an unknown browser')
  t.notMatch(browserLine('ja', undefined), 'unknown')
})
