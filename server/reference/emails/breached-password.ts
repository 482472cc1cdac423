import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/**
 * "Please change your password": sent after a password sign-in whose password
 * is in the breach corpus (docs/breached-passwords.md). The page says so too
 * when its scripts run; the email reaches a visitor who signed in without
 * scripts, through an operator's own page or on the local network, and stays
 * in the inbox. `resetPageUrl` is the page's "forgot password" view: the email
 * holds no live token, since nobody asked for one.
 */
export function breachedPasswordEmail (options: { to: string, productName: string, resetPageUrl: string, messages: EmailMessages }): OutgoingEmail {
  const { to, productName, resetPageUrl, messages } = options
  return composeEmail({
    kind: 'breached_password',
    to,
    messages,
    subject: messages.text('breachedPassword.subject', { product: productName }),
    before: [
      messages.text('breachedPassword.intro', { product: productName }),
      messages.text('breachedPassword.advice')
    ],
    link: { href: resetPageUrl, label: messages.text('breachedPassword.link') },
    after: [messages.text('breachedPassword.frequency')]
  })
}
