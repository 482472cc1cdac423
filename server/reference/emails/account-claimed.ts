import type { OutgoingEmail } from '../mailer.js'
import { composeEmail } from './layout.js'

/**
 * Told to the owner when a Google or SSO sign-in proved the address of an
 * account nobody had verified: whoever set its password may not have been
 * them, so that password and every session are gone.
 */
export function accountClaimedEmail (options: { to: string, productName: string, via: 'Google' | 'single sign-on', pageUrl: string }): OutgoingEmail {
  const { to, productName, via, pageUrl } = options
  return composeEmail({
    kind: 'account_claimed',
    to,
    subject: `Your ${productName} account is now signed in with ${via}`,
    before: [
      `You signed in to your ${productName} account with ${via}, which verified this email address. Until now the address had never been verified, so a password set on the account could have been set by someone else.`,
      'To keep the account yours, that password has been removed and every other session of the account has ended. Sign in with ' +
        `${via} from now on, or set a new password with "Forgot Password" on the sign-in page:`
    ],
    link: { href: pageUrl, label: `Go to the ${productName} sign-in page` },
    after: ['If you did not sign in just now, reset your password and tell your administrator.']
  })
}
