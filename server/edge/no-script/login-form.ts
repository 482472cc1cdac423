import { parsePasswordLoginAnswer, type JsonAnswer } from '../../../common/http/accounts-answers.js'
import type { PageFormState } from '../../../common/page/page-render.js'
import { failureStatus } from './answer-status.js'
import { codeStep, refusalText, refused, type FormOutcome } from './form-outcome.js'
import { loginContextFields } from '../../../common/page/page-query.js'
import type { FormHandler, FormPost } from './form-post.js'
import { signsInWithSso } from './sso-discovery.js'
import { startSingleSignOn } from './sso-start-form.js'

/** A login the visitor cannot finish here: what it needs is the page's scripts (docs/no-script.md). */
const NEEDS_SCRIPTS_STATUS = 409

/**
 * `form=login`: email and password, as client/sign-in/useLogin.ts: the domain
 * check first when the address asks for it, then `v2/login` with the login
 * context (with SSO_DISCOVERY, an address without a password whose domain
 * signs in with single sign-on starts it instead, as `form=sso` does).
 * Tokens sign in; a code due shows the code step; an enrolment
 * due, or local-network mode, says it needs scripts; an unverified address
 * offers a new link; any other refusal is shown with the email kept.
 */
export const loginForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const password = post.fields.one('password')
  if (post.localAccounts.kind === 'refused') return refused(400, 'login', email, post.messages.text(post.localAccounts.reason))
  if (post.localAccounts.kind === 'allowed') return refused(NEEDS_SCRIPTS_STATUS, 'login', email, post.messages.text('noScript.localNetwork'))
  const refusal = await post.domainGate(email)
  if (refusal !== null) return refused(refusal.status, 'login', email, post.messages.text(refusal.key))
  if (await signsInWithSso(post, email, password)) return await startSingleSignOn(post, email, 'login')
  const raw = await post.callAccounts('v2/login', { email, password, ...loginContextFields(post.context) })
  return signInOutcome(post, raw, email, {}, { verificationLinkOffered: true })
}

/**
 * What a sign-in's answer (the password's `v2/login`, the emailed code's `email-code/login`) makes of
 * its form post, on the login view with the address kept: tokens sign in; a code due shows the
 * second factor's code step; an enrolment due says it needs scripts; a refusal is shown with
 * `kept` (what the form's step keeps showing), an unverified address with `unverified`.
 */
export function signInOutcome (post: FormPost, raw: JsonAnswer, email: string, kept: Partial<PageFormState>, unverified: Partial<PageFormState>): FormOutcome {
  const answer = parsePasswordLoginAnswer(raw)
  switch (answer.kind) {
    case 'tokens':
      return post.signIn(answer)
    case 'second-factor':
      return answer.step === 'code'
        ? codeStep(email, answer.challenge)
        : refused(NEEDS_SCRIPTS_STATUS, 'login', email, post.messages.text('server.secondFactorEnrolment'))
    case 'email-not-verified':
      return refused(failureStatus(raw), 'login', email, answer.message, unverified)
    case 'error':
      return refused(failureStatus(raw), 'login', email, refusalText(answer, post.messages), kept)
    case 'failed':
      return refused(failureStatus(raw), 'login', email, post.messages.text('error.GENERIC'), kept)
  }
}
