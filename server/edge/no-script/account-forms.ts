import { parseSuccessAnswer, type JsonAnswer } from '../../../common/http/accounts-answers.js'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { signInFirst } from '../account/account-view.js'
import { sessionGone } from '../account/signed-in-calls.js'
import { failureStatus } from './answer-status.js'
import { FormFieldsError } from './form-fields.js'
import { refusalText, refused, succeeded, type FormOutcome } from './form-outcome.js'
import type { FormHandler, FormPost } from './form-post.js'

/*
 * The account view's forms posted without scripts (common/account/account-state.ts
 * ACCOUNT_FORMS; docs/account-view.md): each calls its accounts path with the
 * account's token, a change after a fresh proof (`reauthenticate` with the
 * current password, whose proof cookie the change's call then carries:
 * accounts-call.ts). Each ends on the account view after a 303 (they carry
 * passwords: form-posts-route.ts FLASHED_FORMS), with the success or the
 * refusal above it; a session that has ended, on the login view that comes back.
 */

/** The session has ended, or there is none: sign in first, then back to the account view. */
function signInAgain (post: FormPost): FormOutcome {
  return { kind: 'redirect', location: signInFirst(post.query), cookies: [] }
}

/** The account view with the call's own success text (or `done`'s), or its refusal, or the login view when the session ended. */
function outcomeOf (answer: JsonAnswer, post: FormPost, done: MessageKey): FormOutcome {
  if (sessionGone(answer)) return signInAgain(post)
  const parsed = parseSuccessAnswer(answer)
  if (parsed.kind === 'success') return succeeded('account', '', parsed.message === '' ? post.messages.text(done) : parsed.message)
  return refused(failureStatus(answer), 'account', '', parsed.kind === 'error' ? refusalText(parsed, post.messages) : post.messages.text('error.GENERIC'))
}

/**
 * The fresh proof a change needs (docs/account-changes.md), from the form's
 * `currentPassword`: null once given, or how the post ends without it. An
 * account with a second factor needs a code too, which these forms have no
 * field for: the service's refusal says so, and the view with scripts asks for it.
 */
async function proven (post: FormPost): Promise<FormOutcome | null> {
  const password = post.fields.one('currentPassword')
  if (password === '') throw new FormFieldsError('field "currentPassword" empty')
  const answer = await post.account.call('reauthenticate', { password })
  if (sessionGone(answer)) return signInAgain(post)
  const parsed = parseSuccessAnswer(answer)
  if (parsed.kind === 'success') return null
  return refused(failureStatus(answer), 'account', '', parsed.kind === 'error' ? refusalText(parsed, post.messages) : post.messages.text('error.GENERIC'))
}

/** `account-end-session`: one session signed out (`sessions/end`); another account's id is the service's 404, shown as it says. */
export const endSessionForm: FormHandler = async (post) => {
  const id = post.fields.one('id')
  if (id === '') throw new FormFieldsError('field "id" empty')
  return outcomeOf(await post.account.call('sessions/end', { id }), post, 'server.accountSessionEnded')
}

/** `account-end-others`: every other session signed out (`sessions/end-others`), as the page's button does. */
export const endOtherSessionsForm: FormHandler = async (post) =>
  outcomeOf(await post.account.call('sessions/end-others', {}), post, 'otherSessions.ended')

/**
 * `account-password`: a new password, typed twice (checked here: the call
 * takes it once), with the fresh proof; `endOtherSessions` "on" signs every
 * other session out too. The service applies the length and breached-password rules.
 */
export const passwordForm: FormHandler = async (post) => {
  const newPassword = post.fields.one('newPassword')
  if (newPassword !== post.fields.one('confirmPassword')) return refused(400, 'account', '', post.messages.text('server.passwordsDiffer'))
  const refusal = await proven(post)
  if (refusal !== null) return refusal
  const endOtherSessions = post.fields.optional('endOtherSessions', '') === 'on'
  return outcomeOf(await post.account.call('password/change', { newPassword, endOtherSessions }), post, 'server.accountPasswordChanged')
}

/** `account-email`: a new address, with the fresh proof; a link to it confirms the change (the same answer whether or not it is taken). */
export const emailForm: FormHandler = async (post) => {
  const newEmail = post.fields.one('newEmail').trim()
  if (newEmail === '') throw new FormFieldsError('field "newEmail" empty')
  const refusal = await proven(post)
  if (refusal !== null) return refusal
  return outcomeOf(await post.account.call('email/change', { newEmail }), post, 'server.accountEmailLinkSent')
}

/**
 * `account-delete`: the account's address typed again, with the fresh proof.
 * Deleted, the account has no session left: its cookies go, as a sign-out's,
 * and the visitor lands where a sign-out would, told so.
 */
export const deleteForm: FormHandler = async (post) => {
  const confirmEmail = post.fields.one('confirmEmail')
  const refusal = await proven(post)
  if (refusal !== null) return refusal
  const answer = await post.account.call('account/delete', { confirmEmail })
  const outcome = outcomeOf(answer, post, 'server.accountDeleted')
  return outcome.kind === 'page' && outcome.state.notice?.kind === 'success' ? post.signOut(outcome.state.notice.text) : outcome
}
