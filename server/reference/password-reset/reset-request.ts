import { logAuthEvent } from '../audit/audit.js'
import { RESET_TOKEN_TTL_MS, type OwnerEmailing } from '../emails/email-links.js'
import { emailMessages } from '../emails/email-messages.js'
import { sendAfterAnswering } from '../emails/mailer.js'
import { passwordResetEmail } from '../emails/password-reset.js'
import { errorAnswer as error, successAnswer as success, type Answer, type EmailAudience, type RequestFacts } from '../http/answers.js'
import { parseEmail } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import { inPageLanguage } from '../languages/page-language.js'
import { hashToken, newOpaqueToken } from '../sessions/tokens.js'

/** At most 3 reset emails are sent to one account per hour. */
export const RESET_EMAILS_PER_HOUR = 3

/**
 * `resetPasswordRequest`: answers the same whether or not the account
 * exists, and sends the email after answering, so that neither the text nor
 * the timing tells.
 */
export class ResetRequest {
  constructor (private readonly options: OwnerEmailing) {}

  async request (body: unknown, facts: RequestFacts): Promise<Answer> {
    const email = parseEmail((body as { email?: unknown } | null)?.email)
    if (!email.ok) return error(400, say(facts, email.error))
    logAuthEvent(facts, 'reset.requested', { email: email.value, clientAddress: facts.clientAddress })
    sendAfterAnswering(facts.log, 'password reset', () => this.sendResetEmail(email.value, facts))
    return success(say(facts, 'resetPassword.sent'))
  }

  private async sendResetEmail (email: string, audit: EmailAudience): Promise<void> {
    const { store, mailer, publicUrl, productName } = this.options
    const account = await store.findAccountByEmail(email)
    if (account === null) return
    const now = this.options.now()
    if (await store.countResetTokensSince(account.id, now - 60 * 60 * 1000) >= RESET_EMAILS_PER_HOUR) {
      logAuthEvent(audit, 'reset.suppressed', { accountId: account.id, reason: 'hourly limit' })
      return
    }
    const token = newOpaqueToken()
    await store.insertResetToken(hashToken(token), account.id, now + RESET_TOKEN_TTL_MS)
    const link = inPageLanguage(`${publicUrl}/?view=setPassword&token=${token}`, audit.locale)
    const delivery = await mailer.send(passwordResetEmail({
      to: account.email, link, productName, validMinutes: RESET_TOKEN_TTL_MS / 60_000, messages: emailMessages(audit.locale)
    }))
    // The log says where the email went, never the link: it holds a live token.
    logAuthEvent(audit, 'reset.email-sent', { accountId: account.id, ...delivery })
  }
}
