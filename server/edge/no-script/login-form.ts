import { parsePasswordLoginAnswer } from '../../../common/http/accounts-answers.js'
import { failureStatus } from './answer-status.js'
import { codeStep, refusalText, refused } from './form-outcome.js'
import { loginContextFields } from '../../../common/page/page-query.js'
import type { FormHandler } from './form-post.js'

/** A login the visitor cannot finish here: what it needs is the page's scripts (docs/no-script.md). */
const NEEDS_SCRIPTS_STATUS = 409

/**
 * `form=login`: email and password, as client/sign-in/useLogin.ts: the domain
 * check first when the address asks for it, then `v2/login` with the login
 * context. Tokens sign in; a code due shows the code step; an enrolment
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
  const raw = await post.callAccounts('v2/login', { email, password, ...loginContextFields(post.context) })
  const answer = parsePasswordLoginAnswer(raw)
  switch (answer.kind) {
    case 'tokens':
      return post.signIn(answer)
    case 'second-factor':
      return answer.step === 'code'
        ? codeStep(email, answer.challenge)
        : refused(NEEDS_SCRIPTS_STATUS, 'login', email, post.messages.text('server.secondFactorEnrolment'))
    case 'email-not-verified':
      return refused(failureStatus(raw), 'login', email, answer.message, { verificationLinkOffered: true })
    case 'error':
      return refused(failureStatus(raw), 'login', email, refusalText(answer, post.messages))
    case 'failed':
      return refused(failureStatus(raw), 'login', email, post.messages.text('error.GENERIC'))
  }
}
