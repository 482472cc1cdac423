import type { OutgoingEmail } from '../mailer.js'
import { composeEmail } from './layout.js'

/** The password reset email. */
export function passwordResetEmail (options: { to: string, link: string, productName: string, validMinutes: number }): OutgoingEmail {
  const { to, link, productName, validMinutes } = options
  return composeEmail({
    kind: 'password_reset',
    to,
    subject: `Reset your ${productName} password`,
    before: [`Someone asked to reset the password of your ${productName} account. To choose a new password, open this link:`],
    link: { href: link, label: 'Choose a new password' },
    after: [`The link works once, within ${validMinutes} minutes. If you did not ask for this, ignore this email: your password stays as it is.`]
  })
}
