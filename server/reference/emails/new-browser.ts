import type { OutgoingEmail } from '../mailer.js'
import { composeEmail } from './layout.js'

export interface NewBrowserFacts {
  /** When the sign-in happened, written out in UTC. */
  readonly at: Date
  /** The browser and system its User-Agent names, or "an unknown browser". */
  readonly browser: string
  /** The client address the sign-in came from. */
  readonly address: string
}

/** "Was this you?": a password sign-in from a browser that had not signed in to the account before. */
export function newBrowserEmail (options: { to: string, productName: string, facts: NewBrowserFacts, link: string, validDays: number }): OutgoingEmail {
  const { to, productName, facts, link, validDays } = options
  const when = `${facts.at.toISOString().slice(0, 16).replace('T', ' at ')} UTC`
  return composeEmail({
    kind: 'new_browser',
    to,
    subject: `New sign-in to your ${productName} account`,
    before: [
      `Your ${productName} account was signed in to with its password from a browser it had not been used in before:`,
      `When: ${when}. Browser: ${facts.browser}. Network address: ${facts.address}.`,
      'If this was you, you need not do anything. If it was not, open this link: it signs your account out everywhere and asks you for a new password.'
    ],
    link: { href: link, label: 'This was not me: secure my account' },
    after: [`The link works once, within ${validDays} days.`]
  })
}
