import { EMAIL_CODE_LOGIN_METHOD, normalizeEmailCode } from '../../../common/email-codes/email-code-format.js'
import { parseSuccessAnswer } from '../../../common/http/accounts-answers.js'
import { listParameter, loginContextFields } from '../../../common/page/page-query.js'
import { failureStatus } from './answer-status.js'
import { refusalText, refused } from './form-outcome.js'
import type { FormHandler, FormPost } from './form-post.js'
import { signInOutcome } from './login-form.js'

/** A form for a method the page's address does not offer (EMAIL_CODES off, or `login_method` without EMAIL_CODE). */
const METHOD_REFUSED_STATUS = 403

/** The `login_method` values the page knows besides the emailed code's (docs/page.md): with none known, every method is offered. */
const OTHER_LOGIN_METHODS = ['GOOGLE', 'SAML', 'CUSTOM_SSO', 'OIDC']

/**
 * Whether the page at `query` offers the emailed code, as it decides for its
 * own buttons (docs/email-codes.md, "The switch"): EMAIL_CODES on, not in
 * local-network mode, and `login_method` either absent, naming only values
 * the page does not know (then every method is offered), or naming
 * EMAIL_CODE.
 */
export function emailCodeOffered (query: URLSearchParams, options: { readonly enabled: boolean, readonly productName: string, readonly localNetwork: boolean }): boolean {
  if (!options.enabled || options.localNetwork) return false
  const requested = listParameter(query, 'login_method').map((value) => value.toUpperCase())
  if (requested.includes(EMAIL_CODE_LOGIN_METHOD)) return true
  const known = [...OTHER_LOGIN_METHODS, options.productName.toUpperCase()]
  return !requested.some((value) => known.includes(value))
}

/** The refusal of a form for a method the address does not offer, or null. */
function methodRefusal (post: FormPost, email: string) {
  if (post.localAccounts.kind !== 'off') return refused(400, 'login', email, post.messages.text('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  // Only a hand-made post gets here: the page shows no such form.
  if (!post.emailCodeOffered) return refused(METHOD_REFUSED_STATUS, 'login', email, post.messages.text('error.GENERIC'))
  return null
}

/**
 * `form=email-code-request`, as the page's request step: the domain check
 * first when the address asks for it, then `email-code/send`. The service's
 * binding cookie (`email_code_browser`) comes back on the answer
 * (inner-call.ts); the page shows the code step for the address with the
 * service's text, which reads alike whether or not the address has an
 * account. A refusal shows the login view with it. The code step's "Send a
 * new code" posts this form again, the address hidden.
 */
export const emailCodeRequestForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const refusal = methodRefusal(post, email)
  if (refusal !== null) return refusal
  const domainRefusal = await post.domainGate(email)
  if (domainRefusal !== null) return refused(domainRefusal.status, 'login', email, post.messages.text(domainRefusal.key))
  const raw = await post.callAccounts('email-code/send', { email })
  const answer = parseSuccessAnswer(raw)
  if (answer.kind === 'success') {
    return {
      kind: 'page',
      status: 200,
      state: { view: 'login', email, emailCodeSent: true, notice: { kind: 'success', text: answer.message }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null }
    }
  }
  return refused(failureStatus(raw), 'login', email, answer.kind === 'error' ? refusalText(answer, post.messages) : post.messages.text('error.GENERIC'))
}

/**
 * `form=email-code`, the code step: `email-code/login` with the address,
 * the code as typed (made comparable first: a code that cannot be one is
 * refused before any try is counted) and the login context, with the
 * browser's binding cookie. Tokens sign in as the login form does; a second
 * factor due shows its code step; any refusal shows the code step again
 * with it, the address kept.
 */
export const emailCodeForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const refusal = methodRefusal(post, email)
  if (refusal !== null) return refusal
  const again = { emailCodeSent: true } as const
  const code = normalizeEmailCode(post.fields.one('code'))
  if (code === null) return refused(400, 'login', email, post.messages.text('emailCode.codeIncomplete'), again)
  const domainRefusal = await post.domainGate(email)
  if (domainRefusal !== null) return refused(domainRefusal.status, 'login', email, post.messages.text(domainRefusal.key))
  const raw = await post.callAccounts('email-code/login', { email, code, ...loginContextFields(post.context) })
  return signInOutcome(post, raw, email, again, again)
}
