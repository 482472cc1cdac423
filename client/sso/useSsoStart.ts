import { useState } from 'react'
import useSWRMutation from 'swr/mutation'
import { startSso, type SsoStartPayload } from './sso-calls.js'
import type { SsoStartAnswer } from '../../common/http/accounts-answers.js'
import type { NoticeContent } from '../components/Notice.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { refusalText } from '../languages/messages.js'
import { keepSsoStartContext } from './sso-start-context.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import type { PageState } from '../page/usePageState.js'

/** What the start of single sign-on uses of the page. */
type SsoStartPage = Pick<PageState, 'params' | 'messages' | 'context' | 'localMode' | 'leave'>

/**
 * The start of single sign-on, in its modal: the email picks the identity
 * provider and, after the domain check when the page asks for one, the
 * browser goes there, the page's target and context kept in this tab for
 * the return (useSsoCompletion). Failures are told in the modal, not above the form.
 */
export function useSsoStart (page: SsoStartPage, gate: DomainGate) {
  const { trigger, reset, isMutating } = useSWRMutation('threshold/sso-start', async (_key: string, { arg }: { arg: SsoStartPayload }): Promise<SsoStartAnswer> => {
    const refusal = await gate(arg.email)
    if (refusal !== null) return { kind: 'error', message: refusal }
    return startSso(arg)
  })
  const [modalOpen, setModalOpen] = useState(false)
  const [notice, setNotice] = useState<NoticeContent | null>(null)
  const { params } = page

  return {
    offered: !page.localMode && params.loginMethods.has('sso'),
    modalOpen,
    openModal: () => setModalOpen(true),
    notice,
    submitting: isMutating,
    submit (email: string): void {
      setNotice(null)
      const source = params.view === 'register' ? 'register' : 'login'
      void trigger({ email, source, redirect: params.redirect, ...page.context }, {
        onSuccess: (answer) => {
          if (answer.kind !== 'redirect') {
            setNotice({ kind: 'error', text: answer.kind === 'error' ? refusalText(answer, page.messages) : page.messages.text(ERROR_MESSAGE_KEYS.GENERIC) })
            return
          }
          keepSsoStartContext(source, params)
          page.leave(answer.url)
        }
      })
    },
    cancel (): void {
      // An answer still on its way is then ignored, so a cancelled start cannot send the browser off.
      reset()
      setNotice(null)
      setModalOpen(false)
    }
  }
}
