import { isAuthenticatorCode, withoutSpaces } from '../../../common/second-factor/second-factor-codes.js'
import { parseVerifyAnswer } from '../../../common/second-factor/second-factor-answers.js'
import { failureStatus } from './answer-status.js'
import { FormFieldsError } from './form-fields.js'
import { refusalText, refused } from './form-outcome.js'
import type { FormHandler } from './form-post.js'

/**
 * `form=secondFactor`, the code step of a login, as
 * client/second-factor/CodeStep.tsx: the login's challenge and a code to
 * `second-factor/verify`, with `remember_browser` when the box is ticked
 * and the edge offers it. Without scripts there is one field for both kinds
 * of code: six digits are an authenticator code, anything else a recovery
 * code (the page has a switch between the two). Tokens sign in; a refusal
 * shows the code step again, its challenge kept (it survives a refusal).
 */
export const secondFactorForm: FormHandler = async (post) => {
  const challenge = post.fields.one('challenge')
  const code = withoutSpaces(post.fields.one('code'))
  if (challenge === '') throw new FormFieldsError('field "challenge" empty')
  if (code === '') throw new FormFieldsError('field "code" empty')
  const proof = isAuthenticatorCode(code) ? { code } : { recovery_code: code }
  const remember = post.rememberBrowserOffered && post.fields.optional('remember', '') === 'on'
  const raw = await post.callAccounts('second-factor/verify', { challenge, ...proof, remember_browser: remember })
  const answer = parseVerifyAnswer(raw)
  if (answer.kind === 'tokens') return post.signIn(answer)
  const text = answer.kind === 'error' ? refusalText(answer, post.messages) : post.messages.text('error.GENERIC')
  return refused(failureStatus(raw), 'login', '', text, { secondFactorChallenge: challenge })
}
