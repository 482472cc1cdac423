import type { OutgoingEmail } from './mailer.js'
import type { EmailMessages } from './email-messages.js'
import { momentIn } from './email-moment.js'
import { composeEmail } from './layout.js'
import { nameBrowser, type BrowserIdentity } from '../known-browsers/browser-names.js'

export interface NewBrowserFacts {
  /** When the sign-in happened, written out in UTC. */
  readonly at: Date
  /** The browser and system its User-Agent names (said in the email's language). */
  readonly browser: BrowserIdentity
  /** The client address the sign-in came from. */
  readonly address: string
}

/** "Was this you?": a password sign-in from a browser that had not signed in to the account before. */
export function newBrowserEmail (options: { to: string, productName: string, facts: NewBrowserFacts, link: string, validDays: number, messages: EmailMessages }): OutgoingEmail {
  const { to, productName, facts, link, validDays, messages } = options
  return composeEmail({
    kind: 'new_browser',
    to,
    messages,
    subject: messages.text('newBrowser.subject', { product: productName }),
    before: [
      messages.text('newBrowser.intro', { product: productName }),
      factsIn(messages, facts),
      messages.text('newBrowser.advice')
    ],
    link: { href: link, label: messages.text('newBrowser.link') },
    after: [messages.text('newBrowser.validity', { days: validDays })]
  })
}

/** "When: … Browser: … Network address: …" in the email's language: what an owner is told of a request done in her name. */
export function factsIn (messages: EmailMessages, facts: NewBrowserFacts): string {
  return messages.text('newBrowser.facts', { when: momentIn(messages, facts.at), browser: browserIn(messages, facts.browser), address: facts.address })
}

/** The browser's name in the email's language: the names stay, the words around them are translated. */
export function browserIn (messages: EmailMessages, identity: BrowserIdentity): string {
  return nameBrowser(identity, {
    onSystem: (browser, system) => messages.text('browser.onSystem', { browser, system }),
    anyOnSystem: (system) => messages.text('browser.anyOnSystem', { system }),
    unknown: messages.text('browser.unknown')
  })
}
