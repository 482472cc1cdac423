import { loginContextFields } from '../../../common/page/page-query.js'
import { parseSocialStartAnswer } from '../../../common/social/social-answers.js'
import { SOCIAL_PROVIDER_ID_FORMAT } from '../../../common/social/social-providers.js'
import { FormFieldsError } from './form-fields.js'
import { refused } from './form-outcome.js'
import type { FormHandler } from './form-post.js'
import { identityProviderOutcome } from './identity-provider-start.js'

/**
 * `form=social`, a social connection's button (its hidden `provider` field names the connection), as the
 * page's scripts start it: `auth/login/social` with the view as its source, the address's `redirect` and the
 * login context; then, as `form=sso`, a page that sends the visitor on to the provider with the service's
 * `social_state` cookie set on the way (identity-provider-start.ts). No address is typed, so there is no
 * domain check before it: the accounts service's completion names the account. The return completes on the
 * page with its scripts (docs/no-script.md). Local-network mode offers no social sign-in.
 */
export const socialStartForm: FormHandler = async (post) => {
  const provider = post.fields.one('provider')
  const view = post.view === 'register' ? 'register' : 'login'
  if (!SOCIAL_PROVIDER_ID_FORMAT.test(provider)) throw new FormFieldsError('field "provider" malformed')
  if (post.localAccounts.kind !== 'off') return refused(400, view, '', post.messages.text('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  const raw = await post.callAccounts('auth/login/social', { provider, source: view, redirect: post.context.redirect, ...loginContextFields(post.context) })
  return identityProviderOutcome(post, view, '', raw, parseSocialStartAnswer(raw))
}
