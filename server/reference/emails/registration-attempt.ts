import type { OutgoingEmail } from '../mailer.js'
import { composeEmail } from './layout.js'

/**
 * Sent instead of a refusal when someone registers an address that already
 * has an account (REQUIRE_VERIFIED_EMAIL): the page answers as for a new
 * address, and only the owner learns that the account exists.
 */
export function registrationAttemptEmail (options: { to: string, productName: string, pageUrl: string }): OutgoingEmail {
  const { to, productName, pageUrl } = options
  return composeEmail({
    kind: 'registration_attempt',
    to,
    subject: `Someone tried to register with your address at ${productName}`,
    before: [
      `Someone tried to create a ${productName} account with this email address, which already has one. No new account was created.`,
      'If it was you, log in, or reset your password if you have forgotten it:'
    ],
    link: { href: pageUrl, label: `Go to the ${productName} sign-in page` },
    after: ['If it was not you, you need not do anything: your account is unchanged.']
  })
}
