import { randomUUID } from 'node:crypto'
import { EMAIL_CODE_LIFETIME_SECONDS } from '../../../common/email-codes/email-code-format.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { emailCodeEmail, type EmailCodeUse } from '../emails/email-code.js'
import { emailMessages } from '../emails/email-messages.js'
import type { OwnerEmailing } from '../emails/email-links.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import { errorAnswer as error, type Answer, type RequestFacts } from '../http/answers.js'
import { asBody, parseEmail } from '../http/validation.js'
import { identifyBrowser } from '../known-browsers/browser-names.js'
import { say } from '../languages/answer-texts.js'
import type { EmailCodePurpose } from '../store/account-store.js'
import type { SsoRequirement } from '../sso/sso-requirement.js'
import { bindingSetCookie, newBrowserBinding } from './browser-binding-cookie.js'
import { EMAIL_CODE_LIFETIME_MS, EMAIL_CODE_SEND_LIMITS, sendsSpentAnswer } from './code-bounds.js'
import { newEmailCode, type EmailCodeHasher } from './code-hashing.js'

export interface CodeSendingOptions extends OwnerEmailing {
  readonly hasher: EmailCodeHasher
  /** Who is signed in, for a code that proves the account again (`purpose: reauthenticate`). */
  readonly owners: AccountOwners
  /** A domain that signs in only with single sign-on is sent no sign-in code (sso-requirement.ts). */
  readonly ssoRequirement: SsoRequirement
}

/** Whom a code goes to and what it does, once the request is read. */
interface Recipient {
  readonly email: string
  readonly purpose: EmailCodePurpose
  readonly accountId: string | null
  /**
   * What the email says the code does, and the address it goes to (an account's as it keeps it): decided
   * after the answer for a sign-in, whether the address has an account or not.
   */
  readonly delivery: () => Promise<{ readonly use: EmailCodeUse, readonly to: string }>
}

/**
 * `email-code/send`: a code to an address, for a sign-in (`{ email }`: a
 * sign-up code where the address has no account) or for the signed-in
 * owner's fresh proof (`{ purpose: "reauthenticate" }`). The answer is the
 * same, after the same store work, whether or not the address has an
 * account: which email it gets is decided only after the answer, when the
 * email is written and sent.
 */
export class CodeSending {
  constructor (private readonly options: CodeSendingOptions) {}

  async send (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, hasher, now } = this.options
    const fields = asBody(body)
    const recipient = fields.purpose === 'reauthenticate'
      ? await this.owner(authToken, facts)
      : fields.purpose === undefined ? this.visitor(fields.email, facts) : error(400, say(facts, 'emailCode.purposeInvalid'))
    if ('status' in recipient) return recipient
    const { binding, hash, replaces } = newBrowserBinding(facts.browser?.cookieHeader)
    const code = newEmailCode()
    const addressHash = hasher.address(recipient.email)
    const sentAt = now()
    const issued = await store.emailCodes.issue({
      id: randomUUID(),
      addressHash,
      codeHash: hasher.code(addressHash, recipient.email, code),
      bindingHash: hash,
      purpose: recipient.purpose,
      accountId: recipient.accountId,
      rangeHash: hasher.range(facts.clientAddress),
      createdAt: sentAt,
      expiresAt: sentAt + EMAIL_CODE_LIFETIME_MS
    }, EMAIL_CODE_SEND_LIMITS, sentAt, replaces)
    if ('refused' in issued) {
      logAuthEvent(facts, 'email-code.refused', { email: recipient.email, clientAddress: facts.clientAddress, reason: `sends-spent-${issued.refused}`, purpose: recipient.purpose })
      return sendsSpentAnswer(issued.retryAt, sentAt, facts)
    }
    logAuthEvent(facts, 'email-code.sent', { email: recipient.email, clientAddress: facts.clientAddress, purpose: recipient.purpose })
    const userAgent = facts.browser?.userAgent
    sendAfterAnswering(facts.log, 'email code', async () => {
      const { use, to } = await recipient.delivery()
      const delivery = await this.options.mailer.send(emailCodeEmail({
        to,
        code,
        use,
        productName: this.options.productName,
        request: { at: new Date(sentAt), browser: identifyBrowser(userAgent) },
        messages: emailMessages(facts.locale)
      }))
      logAuthEvent(facts, 'email-code.email-sent', { email: recipient.email, use, ...delivery })
    })
    return {
      status: 200,
      body: { success: say(facts, 'emailCode.sent'), expires_in: EMAIL_CODE_LIFETIME_SECONDS },
      cookies: [bindingSetCookie(binding)]
    }
  }

  /** A sign-in's recipient: the address typed, whose account (or none) is looked up only when the email is written. */
  private visitor (email: unknown, facts: RequestFacts): Recipient | Answer {
    const parsed = parseEmail(email)
    if (!parsed.ok) return error(400, say(facts, parsed.error))
    // Before any code is made or stored: the same refusal whether the address has an account.
    const ssoRequired = this.options.ssoRequirement.refusalFor(parsed.value, 'email-code', facts)
    if (ssoRequired !== null) return ssoRequired
    return {
      email: parsed.value,
      purpose: 'sign-in',
      accountId: null,
      delivery: async () => {
        const account = await this.options.store.findAccountByEmail(parsed.value)
        return account === null ? { use: 'sign-up', to: parsed.value } : { use: 'sign-in', to: account.email }
      }
    }
  }

  /** The signed-in owner's own address, as `reauthenticate` checks her. */
  private async owner (authToken: string | null, facts: RequestFacts): Promise<Recipient | Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'reauth.failed', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    return { email: owner.account.email, purpose: 'reauthenticate', accountId: owner.account.id, delivery: async () => ({ use: 'reauthenticate', to: owner.account.email }) }
  }
}
