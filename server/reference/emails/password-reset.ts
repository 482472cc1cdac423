import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/** The password reset email. */
export function passwordResetEmail (options: { to: string, link: string, productName: string, validMinutes: number, messages: EmailMessages }): OutgoingEmail {
  const { to, link, productName, validMinutes, messages } = options
  return composeEmail({
    kind: 'password_reset',
    to,
    messages,
    subject: messages.text('passwordReset.subject', { product: productName }),
    before: [messages.text('passwordReset.intro', { product: productName })],
    link: { href: link, label: messages.text('passwordReset.link') },
    after: [messages.text('passwordReset.validity', { minutes: validMinutes })]
  })
}
