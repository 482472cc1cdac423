import { parseSuccessAnswer, type JsonAnswer } from '../../../common/http/accounts-answers.js'
import { parseRecentFactorsReview, RECENT_FACTORS_DAYS } from '../../../common/account-changes/recent-factors.js'
import type { RenderedView } from '../../../common/page/page-render.js'
import { failureStatus } from './answer-status.js'
import { refusalText, refused, succeeded, type FormOutcome } from './form-outcome.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import type { FormHandler } from './form-post.js'
import { signsInWithSso } from './sso-discovery.js'
import { startSingleSignOn } from './sso-start-form.js'

/*
 * The forms that end, as the page's "registration-type" calls do
 * (finishWithSuccess in client/page/usePageNotices.ts), on the login view with a success text,
 * or on their own view with the refusal: registration, the reset request and
 * setting a new password; and the request for a new verification link,
 * which stays on the login view either way.
 */

/**
 * The page's finishWithSuccess: the answer's own success text, else
 * `defaultText`, on the login view with `emailAfter`; a refusal on `view`
 * with the email kept (the answer's own text, else error.GENERIC in `messages`' language).
 */
function finish (raw: JsonAnswer, view: RenderedView, email: string, emailAfter: string, defaultText: string, messages: Messages): FormOutcome {
  const answer = parseSuccessAnswer(raw)
  if (answer.kind === 'success') return succeeded('login', emailAfter, answer.message === '' ? defaultText : answer.message)
  return refused(failureStatus(raw), view, email, answer.kind === 'error' ? refusalText(answer, messages) : messages.text('error.GENERIC'))
}

/**
 * `form=register`, as client/registration/useRegister.ts: the register view's
 * fields (first and last name optional, as their inputs are) to `register`;
 * the registered email stays for the login that follows (with SSO_DISCOVERY, an
 * address without a password whose domain signs in with single sign-on starts
 * it instead). Not in local-network mode.
 */
export const registerForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  if (post.localAccounts.kind !== 'off') return refused(400, 'register', email, post.messages.text('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  if (await signsInWithSso(post, email, post.fields.one('password'))) {
    // As `form=sso` starts it: after the domain check the address asks for.
    const refusal = await post.domainGate(email)
    if (refusal !== null) return refused(refusal.status, 'register', email, post.messages.text(refusal.key))
    return await startSingleSignOn(post, email, 'register')
  }
  const payload = {
    first_name: post.fields.optional('first_name', ''),
    last_name: post.fields.optional('last_name', ''),
    email,
    password: post.fields.one('password'),
    confirm_password: post.fields.optional('confirm_password', '')
  }
  return finish(await post.callAccounts('register', payload), 'register', email, email, post.messages.text('success.registered'), post.messages)
}

/**
 * `form=resetPassword`, as client/password-reset/useResetPassword.ts; the email stays
 * for the login view that follows, as the page's email survives the change of view.
 */
export const resetPasswordForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  if (post.localAccounts.kind !== 'off') return refused(400, 'resetPassword', email, post.messages.text('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  return finish(await post.callAccounts('resetPasswordRequest', { email }), 'resetPassword', email, email, post.messages.text('success.resetRequested'), post.messages)
}

/**
 * `form=setPassword`, as client/password-reset/useSetPassword.ts: the new password
 * (and its confirmation, when the form posts one) with the address's reset
 * token to `resetPassword`.
 */
export const setPasswordForm: FormHandler = async (post) => {
  const payload = {
    token: post.resetToken ?? '',
    password: post.fields.one('password'),
    confirm_password: post.fields.optional('confirm_password', '')
  }
  const raw = await post.callAccounts('resetPassword', payload)
  const answer = parseSuccessAnswer(raw)
  const recent = answer.kind === 'success' && raw.kind === 'json' ? recentFactorsSentence(raw.body, post.messages) : null
  if (answer.kind !== 'success' || recent === null) return finish(raw, 'setPassword', '', '', post.messages.text('success.passwordSet'), post.messages)
  return succeeded('login', '', `${answer.message === '' ? post.messages.text('success.passwordSet') : answer.message} ${recent}`)
}

/**
 * What the page lists after a reset with scripts (client/account-changes/RecentFactors.tsx), said in
 * one sentence after the success text: without scripts there is no Remove button (each
 * removal is a call with the answer's review token), so the sentence says how to get one.
 */
function recentFactorsSentence (body: Readonly<Record<string, unknown>>, messages: Messages): string | null {
  const review = parseRecentFactorsReview(body)
  if (review === null) return null
  const dates = new Intl.DateTimeFormat(messages.locale, { dateStyle: 'long', timeZone: 'UTC' })
  const items = [
    ...review.passkeys.map((passkey) => messages.text('server.recentPasskey', { name: passkey.name, date: dates.format(new Date(passkey.createdAt)) })),
    ...review.secondFactorEnrolledAt === null ? [] : [messages.text('server.recentSecondFactor', { date: dates.format(new Date(review.secondFactorEnrolledAt)) })]
  ]
  return messages.text('server.recentFactors', { days: RECENT_FACTORS_DAYS, list: new Intl.ListFormat(messages.locale, { type: 'conjunction' }).format(items) })
}

/**
 * `form=verificationLink`, as client/registration/useVerifyEmailRequest.ts: a new
 * link for the email; once sent the offer ends, a refusal keeps it so the
 * visitor can try again.
 */
export const verificationLinkForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const raw = await post.callAccounts('verifyEmailRequest', { email })
  const answer = parseSuccessAnswer(raw)
  if (answer.kind === 'success') return succeeded('login', email, answer.message === '' ? post.messages.text('success.verificationLinkSent') : answer.message)
  return refused(failureStatus(raw), 'login', email, answer.kind === 'error' ? refusalText(answer, post.messages) : post.messages.text('error.GENERIC'), { verificationLinkOffered: true })
}
