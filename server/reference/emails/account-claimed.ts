import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/**
 * Told to the owner when a Google, SSO or social sign-in proved the address of an
 * account nobody had verified: whoever set its password may not have been
 * them, so that password and every session are gone.
 */
export function accountClaimedEmail (options: {
  to: string, productName: string, via: 'Google' | 'single sign-on' | { readonly provider: string }, pageUrl: string, messages: EmailMessages
}): OutgoingEmail {
  const { to, productName, via, pageUrl, messages } = options
  const product = { product: productName }
  // Whole sentences per way in, so that a language can inflect around the name.
  const texts = typeof via === 'object'
    ? { subject: 'accountClaimed.subjectSocial', whatHappened: 'accountClaimed.whatHappenedSocial', whatWasDone: 'accountClaimed.whatWasDoneSocial' } as const
    : via === 'Google'
      ? { subject: 'accountClaimed.subjectGoogle', whatHappened: 'accountClaimed.whatHappenedGoogle', whatWasDone: 'accountClaimed.whatWasDoneGoogle' } as const
      : { subject: 'accountClaimed.subjectSso', whatHappened: 'accountClaimed.whatHappenedSso', whatWasDone: 'accountClaimed.whatWasDoneSso' } as const
  const params = typeof via === 'object' ? { ...product, provider: via.provider } : product
  return composeEmail({
    kind: 'account_claimed',
    to,
    messages,
    subject: messages.text(texts.subject, params),
    before: [messages.text(texts.whatHappened, params), messages.text(texts.whatWasDone, params)],
    link: { href: pageUrl, label: messages.text('accountClaimed.link', product) },
    after: [messages.text('accountClaimed.notYou')]
  })
}
