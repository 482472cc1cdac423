import type { OutgoingEmail } from './mailer.js'
import type { EmailMessageKey, EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'
import { factsIn, type NewBrowserFacts } from './new-browser.js'

/** A change to how an account signs in, as its owner is told of it. */
export type AccountChange =
  | { readonly kind: 'passkey-added' | 'passkey-removed', readonly passkeyName: string }
  | { readonly kind: 'second-factor-on' | 'second-factor-off' | 'recovery-codes' | 'password' | 'password-set' | 'email' }
  /** A social connection's provider, by the name its button shows. */
  | { readonly kind: 'social-linked' | 'social-unlinked', readonly provider: string }

/** Each change's subject and first paragraph; and the advice, which says what its link undoes. */
const TEXTS: Readonly<Record<AccountChange['kind'], { readonly subject: EmailMessageKey, readonly intro: EmailMessageKey, readonly advice: EmailMessageKey }>> = {
  'passkey-added': { subject: 'change.passkeyAdded.subject', intro: 'change.passkeyAdded.intro', advice: 'change.undoPasskey' },
  'passkey-removed': { subject: 'change.passkeyRemoved.subject', intro: 'change.passkeyRemoved.intro', advice: 'newBrowser.advice' },
  'second-factor-on': { subject: 'change.secondFactorOn.subject', intro: 'change.secondFactorOn.intro', advice: 'change.undoSecondFactor' },
  'second-factor-off': { subject: 'change.secondFactorOff.subject', intro: 'change.secondFactorOff.intro', advice: 'newBrowser.advice' },
  'recovery-codes': { subject: 'change.recoveryCodes.subject', intro: 'change.recoveryCodes.intro', advice: 'newBrowser.advice' },
  password: { subject: 'change.password.subject', intro: 'change.password.intro', advice: 'newBrowser.advice' },
  'password-set': { subject: 'change.passwordSet.subject', intro: 'change.passwordSet.intro', advice: 'newBrowser.advice' },
  // Sent to the address the account had: its holder is the one the link is for.
  email: { subject: 'change.email.subject', intro: 'change.email.intro', advice: 'change.undoEmail' },
  'social-linked': { subject: 'change.socialLinked.subject', intro: 'change.socialLinked.intro', advice: 'change.undoSocial' },
  'social-unlinked': { subject: 'change.socialUnlinked.subject', intro: 'change.socialUnlinked.intro', advice: 'newBrowser.advice' }
}

/**
 * "Your account changed": what changed (a passkey by its name), when, from
 * which browser and network address, as the new-browser email says it; and
 * the "this wasn't me" link, which undoes what can be undone (an added
 * passkey or authenticator), ends every session and asks for a new password.
 */
export function accountChangeEmail (options: {
  to: string, productName: string, change: AccountChange, facts: NewBrowserFacts, link: string, validDays: number, messages: EmailMessages
}): OutgoingEmail {
  const { to, productName, change, facts, link, validDays, messages } = options
  const texts = TEXTS[change.kind]
  const product: Readonly<Record<string, string>> = 'provider' in change ? { product: productName, provider: change.provider } : { product: productName }
  return composeEmail({
    kind: 'account_change',
    to,
    messages,
    subject: messages.text(texts.subject, product),
    before: [
      messages.text(texts.intro, 'passkeyName' in change ? { ...product, name: change.passkeyName } : product),
      factsIn(messages, facts),
      messages.text(texts.advice, product)
    ],
    link: { href: link, label: messages.text('newBrowser.link') },
    after: [messages.text('newBrowser.validity', { days: validDays })]
  })
}
