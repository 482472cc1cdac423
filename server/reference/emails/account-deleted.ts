import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'
import { factsIn, type NewBrowserFacts } from './new-browser.js'

/**
 * "Your account was deleted", to the address the account had: when, from
 * which browser and network address, as the other change emails say it. It
 * carries no link: there is no account left to act on.
 */
export function accountDeletedEmail (options: { to: string, productName: string, facts: NewBrowserFacts, messages: EmailMessages }): OutgoingEmail {
  const { to, productName, facts, messages } = options
  const product = { product: productName }
  return composeEmail({
    kind: 'account_change',
    to,
    messages,
    subject: messages.text('deleted.subject', product),
    before: [messages.text('deleted.intro', product), factsIn(messages, facts), messages.text('deleted.advice')]
  })
}
