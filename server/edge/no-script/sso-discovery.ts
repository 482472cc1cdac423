import type { FormPost } from './form-post.js'

/**
 * Whether a login or register form posted without a password goes to single
 * sign-on (SSO_DISCOVERY, docs/sso.md "Found by the address"): the form the
 * page renders without scripts has a password field and no way to ask as the
 * visitor types, so an empty one is the visitor's "continue". Only
 * `{sso: true}` does; any other answer (`{sso: false}`, a refusal, an answer
 * that cannot be read) leaves the form to its usual call, which refuses the
 * missing password as it always did.
 */
export async function signsInWithSso (post: FormPost, email: string, password: string): Promise<boolean> {
  if (!post.ssoDiscovery || password !== '' || email.trim() === '') return false
  const answer = await post.callAccounts('auth/sso/discover', { email })
  return answer.kind === 'json' && answer.status === 200 && answer.body.sso === true
}
