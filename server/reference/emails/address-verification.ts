import type { OutgoingEmail } from '../mailer.js'
import { composeEmail } from './layout.js'

/** The link that verifies the address of a new account. */
export function addressVerificationEmail (options: { to: string, link: string, productName: string, validHours: number }): OutgoingEmail {
  const { to, link, productName, validHours } = options
  return composeEmail({
    kind: 'verify_email',
    to,
    subject: `Verify your email address for ${productName}`,
    before: [`Someone created a ${productName} account with this email address. If it was you, verify the address by opening this link:`],
    link: { href: link, label: 'Verify my email address' },
    after: [`The link works once, within ${validHours} hours. If you did not create this account, ignore this email: the address stays unverified.`]
  })
}
