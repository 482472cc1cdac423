import { parseSsoStartAnswer, type JsonAnswer, type SsoStartAnswer } from '../http/accounts-answers.js'

/*
 * What the social calls answer, as the page's social parts, the edge and the
 * reference service read and write it. Apart from social-providers.ts and
 * common/http/accounts-answers.ts, which the login view's first load holds:
 * only the chunks loaded when connections are configured import this.
 */

/** The `reason` of `account/social/unlink`'s 409 when nothing else would sign in to the account. */
export const LAST_WAY_IN_REASON = 'last_way_in'

/**
 * A social start's answer (`auth/login/social`, `account/social/link/start`): the SSO start's, its
 * provider's URL named `url` rather than `sso_url` (docs/social-sign-in.md).
 */
export function parseSocialStartAnswer (answer: JsonAnswer): SsoStartAnswer {
  return parseSsoStartAnswer(answer.kind === 'json' ? { ...answer, body: { ...answer.body, sso_url: answer.body.url } } : answer)
}
