import type { JsonAnswer } from '../../../common/http/accounts-answers.js'

/** What a failure's page is answered with when the call gave nothing usable: the proxy's own status for a failed backend. */
const UNUSABLE_ANSWER_STATUS = 502

/**
 * The status of the page that shows an accounts call's refusal or failure:
 * the call's own when it is an error status (a 401 wrong password, a 429
 * rate limit, the edge's 503 or 504 for a backend down or slow), else 502.
 */
export function failureStatus (answer: JsonAnswer): number {
  return answer.kind === 'json' && answer.status >= 400 && answer.status <= 599 ? answer.status : UNUSABLE_ANSWER_STATUS
}
