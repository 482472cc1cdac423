import { parseSsoStartAnswer } from '../../../common/http/accounts-answers.js'
import { refused } from './form-outcome.js'
import { identityProviderOutcome } from './identity-provider-start.js'
import { loginContextFields } from '../../../common/page/page-query.js'
import type { FormOutcome } from './form-outcome.js'
import type { FormHandler, FormPost } from './form-post.js'

/**
 * `form=sso`, the start of single sign-on, as client/sso/useSsoStart.ts:
 * the domain check first when the address asks for it, then `auth/login/sso`
 * with the view as its source, the address's `redirect` and the login
 * context; then a page that sends the visitor on to the answer's `sso_url`
 * (identity-provider-page.ts), with the service's state cookie set on the
 * way (identity-provider-start.ts says which `sso_url` it follows). A
 * failure shows above the view's form (the page shows it in its modal).
 * Local-network mode offers no SSO.
 */
export const ssoStartForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const view = post.view === 'register' ? 'register' : 'login'
  if (post.localAccounts.kind !== 'off') return refused(400, view, email, post.messages.text('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  const refusal = await post.domainGate(email)
  if (refusal !== null) return refused(refusal.status, view, email, post.messages.text(refusal.key))
  return await startSingleSignOn(post, email, view)
}

/**
 * The start itself, once the address may go on (local-network mode off, the
 * domain check passed): `auth/login/sso` from `view`, then the identity
 * provider's page. Also where the login and register forms send an address
 * whose domain SSO_DISCOVERY found (sso-discovery.ts).
 */
export async function startSingleSignOn (post: FormPost, email: string, view: 'login' | 'register'): Promise<FormOutcome> {
  const raw = await post.callAccounts('auth/login/sso', { email, source: view, redirect: post.context.redirect, ...loginContextFields(post.context) })
  return identityProviderOutcome(post, view, email, raw, parseSsoStartAnswer(raw))
}
