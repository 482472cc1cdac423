import { displayEmailCode, EMAIL_CODE_LIFETIME_SECONDS } from '../../../common/email-codes/email-code-format.js'
import type { BrowserIdentity } from '../known-browsers/browser-names.js'
import type { EmailMessages } from './email-messages.js'
import { composeEmail } from './layout.js'
import type { OutgoingEmail } from './mailer.js'
import { momentIn } from './email-moment.js'
import { browserIn } from './new-browser.js'

/** What the code does: signs in to the account, creates one (an address without an account), or confirms a change. */
export type EmailCodeUse = 'sign-in' | 'sign-up' | 'reauthenticate'

const SUBJECT = { 'sign-in': 'emailCode.subjectSignIn', 'sign-up': 'emailCode.subjectSignUp', reauthenticate: 'emailCode.subjectReauthenticate' } as const
const INTRO = { 'sign-in': 'emailCode.introSignIn', 'sign-up': 'emailCode.introSignUp', reauthenticate: 'emailCode.introReauthenticate' } as const

/** Who asked for the code: the browser (named in the email's language) and when. */
export interface EmailCodeRequest {
  readonly at: Date
  readonly browser: BrowserIdentity
}

/**
 * The email with a code: never in the subject (a lock screen shows
 * subjects), on a line of its own in the text (`ABCD-EFGH`), with how long it
 * works, that it works only in the browser that asked, which browser that
 * was and when, and that nobody should ever be given it.
 */
export function emailCodeEmail (options: {
  to: string, code: string, use: EmailCodeUse, productName: string, request: EmailCodeRequest, messages: EmailMessages
}): OutgoingEmail {
  const { to, code, use, productName, request, messages } = options
  const when = momentIn(messages, request.at)
  return composeEmail({
    kind: 'email_code',
    to,
    messages,
    subject: messages.text(SUBJECT[use], { product: productName }),
    before: [messages.text(INTRO[use], { product: productName })],
    highlight: displayEmailCode(code),
    after: [
      messages.text('emailCode.validity', { minutes: EMAIL_CODE_LIFETIME_SECONDS / 60 }),
      messages.text('emailCode.askedBy', { browser: browserIn(messages, request.browser), when }),
      messages.text('emailCode.neverShare', { product: productName }),
      messages.text(use === 'sign-up' ? 'emailCode.notYouSignUp' : 'emailCode.notYou')
    ]
  })
}
