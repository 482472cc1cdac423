import { parseSsoStartAnswer } from '../../../common/accounts-answers.js'
import { ERROR_MESSAGES } from '../../../common/error-messages.js'
import { failureStatus } from './answer-status.js'
import { refused } from './form-outcome.js'
import { loginContextFields, type FormHandler } from './form-post.js'

/**
 * `form=sso`, the start of single sign-on, as client/hooks/useSsoStart.ts:
 * the domain check first when the address asks for it, then `auth/login/sso`
 * with the view as its source, the address's `redirect` and the login
 * context; a 303 to the answer's `sso_url` (an absolute http(s) URL without
 * credentials, or it is a failure), with the service's state cookie set on
 * the way. A failure shows above the view's form (the page shows it in its
 * modal). Local-network mode offers no SSO.
 */
export const ssoStartForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const view = post.view === 'register' ? 'register' : 'login'
  if (post.localAccounts.kind !== 'off') return refused(400, view, email, ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED)
  const refusal = await post.domainGate(email)
  if (refusal !== null) return refused(refusal.status, view, email, refusal.text)
  const raw = await post.callAccounts('auth/login/sso', { email, source: view, redirect: post.context.redirect, ...loginContextFields(post.context) })
  const answer = parseSsoStartAnswer(raw)
  if (answer.kind === 'redirect') return { kind: 'redirect', location: answer.url, cookies: [] }
  return refused(failureStatus(raw), view, email, answer.kind === 'error' ? answer.message : ERROR_MESSAGES.GENERIC)
}
