import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/**
 * Sent instead of a refusal when someone registers an address that already
 * has an account (REQUIRE_VERIFIED_EMAIL): the page answers as for a new
 * address, and only the owner learns that the account exists.
 */
export function registrationAttemptEmail (options: { to: string, productName: string, pageUrl: string, messages: EmailMessages }): OutgoingEmail {
  const { to, productName, pageUrl, messages } = options
  return composeEmail({
    kind: 'registration_attempt',
    to,
    messages,
    subject: messages.text('registrationAttempt.subject', { product: productName }),
    before: [
      messages.text('registrationAttempt.intro', { product: productName }),
      messages.text('registrationAttempt.advice')
    ],
    link: { href: pageUrl, label: messages.text('registrationAttempt.link', { product: productName }) },
    after: [messages.text('registrationAttempt.notYou')]
  })
}
