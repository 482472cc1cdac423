import { Fragment, useState, type ComponentType, type FormEvent } from 'react'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import type { SocialProvider } from '../../common/social/social-providers.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { Spinner } from '../components/Spinner.js'
import { FormName } from '../components/FormName.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { refusalText, useMessages } from '../languages/messages.js'
import type { SignInMethods, SocialMethods } from '../page/form-view-props.js'
import { LastUsedMark } from '../sign-in/AlternativeMethods.js'
import { keepSsoStartContext } from '../sso/sso-start-context.js'
import { startSocial } from './social-calls.js'
import { SocialLogo } from './social-logos.js'

export interface SocialButtonsProps {
  readonly intent: 'login' | 'register'
  readonly busy: boolean
  /** The login or register view's methods, whose `social` is set. */
  readonly methods: SignInMethods & { readonly social: SocialMethods }
}

/** Each provider's label per view, whole sentences: Apple's and Microsoft's as their guidelines title them. */
function labelKey (type: SocialProvider['type'], intent: 'login' | 'register'): MessageKey {
  switch (type) {
    case 'apple': return intent === 'login' ? 'social.apple.login' : 'social.apple.register'
    case 'microsoft': return 'social.microsoft'
    case 'github': return intent === 'login' ? 'social.github.login' : 'social.github.register'
    default: return 'social.generic'
  }
}

/** The button's look: Apple's and Microsoft's own styles (client/styles.css), the page's secondary button for the others. */
const styleOf = (type: SocialProvider['type']): string => type === 'apple' || type === 'microsoft' ? `social--${type}` : 'button--secondary'

/**
 * A button per social connection (docs/page.md, "Social connections"), in
 * the operator's order, as `login_method` allows, the one this browser used
 * last first with its tag. Each is a real form (`form=social` and the
 * provider), so that it works the same without scripts (the edge starts the
 * provider's leg); with them, the page asks `auth/login/social` and goes to
 * the provider, the context kept in this tab as single sign-on keeps it.
 */
function SocialButtons ({ intent, busy, methods }: SocialButtonsProps) {
  const { text } = useMessages()
  const { providers, page } = methods.social
  const [starting, setStarting] = useState<string | null>(null)
  const shown = providers.filter(({ id }) => page.params.loginMethods.has(`social:${id}`))
  shown.sort((a, b) => Number(methods.lastUsed === `social:${b.id}`) - Number(methods.lastUsed === `social:${a.id}`))

  async function start (event: FormEvent, provider: string): Promise<void> {
    event.preventDefault()
    if (busy || starting !== null) return
    page.clearNotice()
    setStarting(provider)
    const { params } = page
    const answer = await startSocial({ provider, source: intent, redirect: params.redirect, ...page.context })
    if (answer.kind === 'redirect') {
      keepSsoStartContext(intent, params)
      page.leave(answer.url)
      return
    }
    setStarting(null)
    page.fail(answer.kind === 'error' ? refusalText(answer, page.messages) : page.messages.text(ERROR_MESSAGE_KEYS.GENERIC))
  }

  return (
    <>
      {shown.map(({ id, type, name, icon }) => (
        <Fragment key={id}>
          <form method='post' className='social' onSubmit={(event) => { void start(event, id) }}>
            <FormName name='social' />
            <input type='hidden' name='provider' value={id} />
            <button type='submit' className={`button ${styleOf(type)}`} disabled={busy || starting !== null} aria-busy={starting === id || undefined}>
              {starting === id ? <Spinner small /> : <SocialLogo type={type} />}
              {icon !== null && starting !== id && type !== 'apple' && type !== 'microsoft' && type !== 'github' &&
                // The label names the provider: the icon says nothing more.
                <img className='social__logo' src={icon} alt='' width='20' height='20' />}
              <span>{text(labelKey(type, intent), { provider: name })}</span>
            </button>
          </form>
          <LastUsedMark methods={methods} method={`social:${id}`} />
        </Fragment>
      ))}
    </>
  )
}

/** The buttons as AlternativeMethods loads them (React.lazy), with their texts (later texts: common/languages/message-catalogue.ts). */
export const withItsTexts = async (): Promise<{ default: ComponentType<SocialButtonsProps> }> => withLaterPageTexts(SocialButtons)

/** The buttons as they are, for the server renderer (client/server-render.tsx), which has their texts at hand. */
export default SocialButtons
