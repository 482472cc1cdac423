import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/**
 * Told to the owner when a Google or SSO sign-in proved the address of an
 * account nobody had verified: whoever set its password may not have been
 * them, so that password and every session are gone.
 */
export function accountClaimedEmail (options: { to: string, productName: string, via: 'Google' | 'single sign-on', pageUrl: string, messages: EmailMessages }): OutgoingEmail {
  const { to, productName, via, pageUrl, messages } = options
  const product = { product: productName }
  // Whole sentences per way in, so that a language can inflect around the name.
  const google = via === 'Google'
  return composeEmail({
    kind: 'account_claimed',
    to,
    messages,
    subject: messages.text(google ? 'accountClaimed.subjectGoogle' : 'accountClaimed.subjectSso', product),
    before: [
      messages.text(google ? 'accountClaimed.whatHappenedGoogle' : 'accountClaimed.whatHappenedSso', product),
      messages.text(google ? 'accountClaimed.whatWasDoneGoogle' : 'accountClaimed.whatWasDoneSso')
    ],
    link: { href: pageUrl, label: messages.text('accountClaimed.link', product) },
    after: [messages.text('accountClaimed.notYou')]
  })
}
