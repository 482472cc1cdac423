import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/** The link that verifies the address of a new account. */
export function addressVerificationEmail (options: { to: string, link: string, productName: string, validHours: number, messages: EmailMessages }): OutgoingEmail {
  const { to, link, productName, validHours, messages } = options
  return composeEmail({
    kind: 'verify_email',
    to,
    messages,
    subject: messages.text('addressVerification.subject', { product: productName }),
    before: [messages.text('addressVerification.intro', { product: productName })],
    link: { href: link, label: messages.text('addressVerification.link') },
    after: [messages.text('addressVerification.validity', { hours: validHours })]
  })
}
