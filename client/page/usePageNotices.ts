import { useEffect, useState } from 'react'
import type { SuccessAnswer } from '../../common/http/accounts-answers.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import type { Messages } from '../../common/languages/message-catalogue.js'
import type { PageFormState } from '../../common/page/page-render.js'
import type { NoticeContent } from '../components/Notice.js'
import { messageForErrorParameter, refusalText } from '../languages/messages.js'
import { showView, updateSearchParams } from './address-bar.js'
import type { PageParams, View } from './page-params.js'

/** What the page says above the form, and what comes with it: the fields' marks and the offer of a new verification link. */
export interface PageNotices {
  /** The error or success text above the form. */
  readonly notice: NoticeContent | null
  /** The last login was refused because the address is not verified yet: the page offers a new link. */
  readonly verificationLinkOffered: boolean
  /** The last submission was refused: the fields are marked invalid. */
  readonly invalid: boolean
  /**
   * Shows an error and marks the fields; `offerVerificationLink`: the refusal of a login whose address is
   * not verified yet, which a new link answers. An offer made before stays (it is no answer to the fields).
   */
  readonly fail: (text: string, offerVerificationLink?: boolean) => void
  /** Shows a success text on the current view; what was refused is settled, so the marks and the offer go. */
  readonly succeed: (text: string) => void
  /** Forgets what the page said (the notice and the offer), as a new submission starts. */
  readonly clearNotice: () => void
  /** Switches view, clearing what the last view said, the marks too. */
  readonly changeView: (next: View) => void
  /** After a registration-type call: back to the login view with the success text, else the refusal. */
  readonly finishWithSuccess: (answer: SuccessAnswer, defaultText: string, unreadableMessage?: string) => void
}

/**
 * The notice the flows share, with the offer of a new verification link that
 * may come with it and the fields' marks. Each form's submission starts by
 * clearing it: what the page said before (an error, a success, a notice from
 * the address) no longer applies once the visitor acts. The spec hides only
 * the error while a request runs; a stale success, such as "You can now log
 * in" above a login that is being refused, would mislead as much.
 */
export function usePageNotices (params: PageParams, messages: Messages, formState: PageFormState | null): PageNotices {
  // A form post's state (PageFormState), when the page answers one, is where the page starts: it is what the server rendered.
  const [notice, setNotice] = useState<NoticeContent | null>(() => {
    // At a code step, the step shows the post's notice itself (useSecondFactor, useEmailCode).
    if (formState !== null) return formState.secondFactorChallenge === null && formState.emailCodeSent !== true ? formState.notice : null
    if (params.errorParameter !== null) return { kind: 'error', text: messageForErrorParameter(params.errorParameter, messages) }
    if (params.localAccounts.kind === 'refused') return { kind: 'error', text: messages.text(params.localAccounts.reason) }
    return params.notice === null ? null : { kind: params.notice.kind, text: messages.text(params.notice.key) }
  })
  const [verificationLinkOffered, setVerificationLinkOffered] = useState(formState?.verificationLinkOffered ?? false)
  // Not derived from the notice: an error from the address (?error=) leaves the fields unmarked,
  // and starting Google clears the notice but not the marks.
  const [invalid, setInvalid] = useState(formState?.invalid ?? false)

  // An effect, not a handler: the notice comes with the address the accounts service sent the
  // browser to, and says something about that moment. It was read into the state above; out of
  // the address, a reload, a bookmark or the back button does not say it again (nor does a link
  // to another view carry it), as the SSO return's parameters and a used reset token leave too.
  useEffect(() => {
    if (new URLSearchParams(window.location.search).has('notice')) {
      updateSearchParams((query) => query.delete('notice'), { replace: true })
    }
  }, [])

  function fail (text: string, offerVerificationLink = false): void {
    setNotice({ kind: 'error', text })
    setInvalid(true)
    if (offerVerificationLink) setVerificationLinkOffered(true)
  }

  function succeed (text: string): void {
    setNotice({ kind: 'success', text })
    setInvalid(false)
    setVerificationLinkOffered(false)
  }

  function clearNotice (): void {
    setNotice(null)
    setVerificationLinkOffered(false)
  }

  return {
    notice,
    verificationLinkOffered,
    invalid,
    fail,
    succeed,
    clearNotice,
    changeView (next) {
      clearNotice()
      setInvalid(false)
      showView(next)
    },
    finishWithSuccess (answer, defaultText, unreadableMessage = messages.text(ERROR_MESSAGE_KEYS.GENERIC)) {
      if (answer.kind !== 'success') {
        fail(answer.kind === 'error' ? refusalText(answer, messages) : unreadableMessage)
        return
      }
      succeed(answer.message === '' ? defaultText : answer.message)
      showView('login')
    }
  }
}
