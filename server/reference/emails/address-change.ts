import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'

/** To the new address an owner asked for: the link that confirms it (server/reference/account-changes/address-change.ts). */
export function addressChangeEmail (options: { to: string, link: string, productName: string, validHours: number, messages: EmailMessages }): OutgoingEmail {
  const { to, link, productName, validHours, messages } = options
  const product = { product: productName }
  return composeEmail({
    // The link verifies an address, as registration's does.
    kind: 'verify_email',
    to,
    messages,
    subject: messages.text('addressChange.subject', product),
    before: [messages.text('addressChange.intro', product)],
    link: { href: link, label: messages.text('addressChange.link') },
    after: [messages.text('addressChange.validity', { hours: validHours })]
  })
}

/**
 * To an address that already has an account, instead of the link: the
 * owner who asked is answered as for a free address, and only the holder of
 * this one learns that it was asked for.
 */
export function addressTakenEmail (options: { to: string, productName: string, messages: EmailMessages }): OutgoingEmail {
  const { to, productName, messages } = options
  const product = { product: productName }
  return composeEmail({
    kind: 'other',
    to,
    messages,
    subject: messages.text('addressTaken.subject', product),
    before: [messages.text('addressTaken.intro', product)],
    after: [messages.text('addressTaken.notYou')]
  })
}
