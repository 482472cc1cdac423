import { createContext, useContext, useState, type ComponentType, type FormEvent } from 'react'
import { EmailCodeProofOffered } from '../account-changes/EmailCodeProof.js'
import type { AccountFeature, AccountState } from '../../common/account/account-state.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { Button } from '../components/Button.js'
import type { NoticeContent } from '../components/Notice.js'
import { FormName } from '../components/FormName.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import { useMessages } from '../languages/messages.js'
import type { PageState } from '../page/usePageState.js'
import { clearTokenCookies } from '../sessions/signed-in-session.js'
import { endThisSession } from '../sessions/this-session-calls.js'
import { accountToken } from './account-token.js'
import { embeddedAccountState } from './embedded-account-state.js'
import { ActivitySection } from './ActivitySection.js'
import { DeleteSection } from './DeleteSection.js'
import { EmailSection } from './EmailSection.js'
import { PasskeysSection } from './PasskeysSection.js'
import { PasswordSection } from './PasswordSection.js'
import { SecondFactorSection } from './SecondFactorSection.js'
import { SessionsSection } from './SessionsSection.js'
import { SocialSection } from './SocialSection.js'
import type { AccountSession } from './useAccountChange.js'

/**
 * The AccountState to render: the server renderer provides the request's
 * (client/server-render.tsx; null when the edge gave none); in the browser
 * there is no provider (undefined), and the view reads what the edge
 * embedded (ACCOUNT_STATE_ELEMENT_ID), the same.
 */
export const AccountStateContext = createContext<AccountState | null | undefined>(undefined)

/** Where `?view=logout` takes a sign-out posted without scripts (server/edge/sessions/). */
const LOGOUT_ADDRESS = '/?view=logout'

export interface AccountViewProps {
  readonly config: RuntimeConfig
  /** The page, which the view leaves for the login view, saying why (signed out, deleted, the session ended). */
  readonly page: Pick<PageState, 'changeView' | 'fail' | 'succeed'>
}

/**
 * The signed-in account's view (`?view=account`; docs/page.md, "The account view"): a
 * section for each part of the account the backend serves
 * (`account/overview`'s `features`), each a form that posts without scripts
 * and a call with them, and sign out. A chunk of its own, with its texts
 * (later texts), loaded only on this view; the server renders it as it is.
 */
function AccountView ({ config, page }: AccountViewProps) {
  const { text } = useMessages()
  const provided = useContext(AccountStateContext)
  const [state, setState] = useState(() => provided === undefined ? embeddedAccountState() : provided)
  const [auth, setAuth] = useState<string | null>(null)
  function onLeave (notice: NoticeContent): void {
    page.changeView('login')
    if (notice.kind === 'error') page.fail(notice.text)
    else page.succeed(notice.text)
  }
  const session: AccountSession = {
    auth,
    token: async () => {
      const token = await accountToken(config)
      setAuth(token)
      return token
    },
    leave: onLeave
  }
  const [signingOut, setSigningOut] = useState(false)
  const [signOutFailed, setSignOutFailed] = useState(false)

  function signOut (event: FormEvent): void {
    event.preventDefault()
    setSigningOut(true)
    setSignOutFailed(false)
    void endThisSession().then((ended) => {
      setSigningOut(false)
      if (!ended) {
        setSignOutFailed(true)
        return
      }
      clearTokenCookies(config.cookieDomain)
      onLeave({ kind: 'success', text: text('signedIn.signedOut') })
    })
  }

  const offers = (feature: AccountFeature): boolean => state?.overview.features.includes(feature) === true
  const update = (change: (current: AccountState) => AccountState): void => setState((current) => current === null ? null : change(current))

  // "Confirm it's you" offers an emailed code where the service answers its calls (EmailCodeProof).
  return (
    <EmailCodeProofOffered.Provider value={config.emailCodes}>
    <div className='form'>
      <h1 className='card__title'>{text('heading.account')}</h1>
      {state === null
        ? <p>{text('account.listUnavailable')}</p>
        : <p>{text('account.signedInAs', { email: state.overview.account.email })}</p>}
      {state !== null && state.overview.features.length === 0 && <p>{text('account.nothingOffered')}</p>}
      <form method='post' action={LOGOUT_ADDRESS} onSubmit={signOut}>
        <FormName name='logout' />
        <div className={`notice${signOutFailed ? ' notice--error' : ''}`} role='alert'>{signOutFailed ? text('signedIn.signOutFailed') : null}</div>
        <Button type='submit' variant='secondary' busy={signingOut}>{text('account.signOut')}</Button>
      </form>
      {state !== null && offers('sessions') && (
        <SessionsSection session={session} sessions={state.sessions} providers={config.socialProviders} onChange={(sessions) => update((current) => ({ ...current, sessions }))}
          signOut={{ address: LOGOUT_ADDRESS, busy: signingOut, onSubmit: signOut }} />
      )}
      {state !== null && offers('passkeys') && (
        <PasskeysSection session={session} passkeys={state.passkeys} rpId={config.passkeyRpId}
          onChange={(passkeys) => update((current) => ({ ...current, passkeys }))} />
      )}
      {state !== null && offers('second-factor') && (
        <SecondFactorSection session={session} secondFactor={state.overview.secondFactor} productName={config.productName}
          onChange={(secondFactor) => update((current) => ({ ...current, overview: { ...current.overview, secondFactor } }))} />
      )}
      {state !== null && offers('password') && (
        <PasswordSection session={session} hasPassword={state.overview.account.hasPassword} passwordMinLength={config.passwordMinLength}
          onChanged={(endedOthers) => update((current) => ({
            ...current,
            overview: { ...current.overview, account: { ...current.overview.account, hasPassword: true } },
            sessions: endedOthers && current.sessions !== null ? current.sessions.filter((entry) => entry.current) : current.sessions
          }))} />
      )}
      {state !== null && offers('social') && (
        <SocialSection session={session} providers={config.socialProviders} linked={state.overview.social ?? []}
          onChange={(social) => update((current) => ({ ...current, overview: { ...current.overview, social } }))} />
      )}
      {state !== null && offers('email') && (
        <EmailSection session={session} email={state.overview.account.email} emailVerified={state.overview.account.emailVerified}
          hasPassword={state.overview.account.hasPassword} />
      )}
      {state !== null && offers('activity') && <ActivitySection events={state.activity} providers={config.socialProviders} />}
      {state !== null && offers('delete') && (
        <DeleteSection session={session} email={state.overview.account.email} hasPassword={state.overview.account.hasPassword} cookieDomain={config.cookieDomain} />
      )}
    </div>
    </EmailCodeProofOffered.Provider>
  )
}

export default AccountView

/** The view as SignInPage loads it: with its texts, where the page left them out. */
export const withItsTexts = async (): Promise<{ default: ComponentType<AccountViewProps> }> => withLaterPageTexts(AccountView)
