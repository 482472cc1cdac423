import { useId, useState, type FormEvent } from 'react'
import type { AccountSession as ListedSession } from '../../common/account/account-state.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import type { SocialProvider } from '../../common/social/social-providers.js'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { useMessages } from '../languages/messages.js'
import { endOtherSessions, endSession } from './account-calls.js'
import { AccountSection, ChangeResult } from './AccountSection.js'
import { useAccountTimes } from './account-times.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

/** The first factors `sessions/list` and `activity/list` name, in words; another is shown as the service wrote it. */
const METHOD_KEYS: Readonly<Record<string, MessageKey>> = {
  password: 'account.method.password',
  passkey: 'account.method.passkey',
  google: 'account.method.google',
  sso: 'account.method.sso',
  'email-code': 'account.method.emailCode',
  social: 'account.method.social'
}

/** A first factor's name in the page's language; a social connection's (`social:<id>`) by its provider's name where it is configured. */
export function useMethodName (providers: readonly SocialProvider[]): (method: string) => string {
  const { text } = useMessages()
  return (method) => {
    if (Object.hasOwn(METHOD_KEYS, method)) return text(METHOD_KEYS[method]!)
    const social = method.startsWith('social:') ? providers.find(({ id }) => `social:${id}` === method) : undefined
    return social?.name ?? method
  }
}

interface SessionsSectionProps {
  readonly session: AccountSession
  /** `sessions/list`'s entries; null where the edge could not read them. */
  readonly sessions: readonly ListedSession[] | null
  /** The configured social connections, whose names the methods `social:<id>` are shown by. */
  readonly providers: readonly SocialProvider[]
  /** After a change: the list as it is now. */
  readonly onChange: (sessions: readonly ListedSession[]) => void
  /**
   * This browser's own session ends as the view's Sign out ends it (the sign-out URL's form): the
   * edge then clears the HttpOnly `refresh` cookie too, which `sessions/end` cannot name.
   */
  readonly signOut: { readonly address: string, readonly busy: boolean, readonly onSubmit: (event: FormEvent) => void }
}

/**
 * "Where you're signed in" (OWASP ASVS 7.5.2): each session with its
 * browser, when it was last used and signed in, how, from which network,
 * and "This browser"; each with its own Sign out, and Sign out everywhere
 * else. Forms that post without scripts (`account-end-session`,
 * `account-end-others`); with scripts, calls, and the list follows.
 */
export function SessionsSection ({ session, sessions, providers, onChange, signOut }: SessionsSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const time = useAccountTimes()
  const method = useMethodName(providers)
  const [done, setDone] = useState<string | null>(null)
  const list = sessions ?? []
  const endOne = useAccountChange('end-session', session, async (auth, ended: ListedSession) => await endSession(auth, ended.id), (answer, ended) => {
    onChange(list.filter((entry) => entry.id !== ended.id))
    setDone(text('account.sessions.ended', { browser: ended.browser }))
  })
  const endOthers = useAccountChange('end-others', session, async (auth) => await endOtherSessions(auth), (answer) => {
    onChange(list.filter((entry) => entry.current))
    setDone(answer.message === '' ? text('otherSessions.ended') : answer.message)
  })
  const busy = endOne.running || endOthers.running

  function submit (event: FormEvent, change: () => void): void {
    event.preventDefault()
    setDone(null)
    if (!busy) change()
  }

  return (
    <AccountSection id={id} title={text('account.sessions.heading')}>
      <ChangeResult done={done} error={endOne.error ?? endOthers.error} />
      {sessions === null && <p>{text('account.listUnavailable')}</p>}
      <ul className='recent-factors'>
        {list.map((entry, index) => (
          <li key={entry.id} aria-labelledby={`${id}-${index}`}>
            <p><strong id={`${id}-${index}`}>{entry.browser}</strong>{entry.current && <> · {text('account.sessions.thisBrowser')}</>}</p>
            <p>{text('account.sessions.lastUsed', { time: time(entry.lastUsedAt) })}</p>
            <p>{text('account.sessions.signedIn', { time: time(entry.signedInAt), method: method(entry.method) })}</p>
            <p>{text('account.sessions.network', { range: entry.addressRange })}</p>
            {entry.current
              ? (
                <form method='post' action={signOut.address} onSubmit={signOut.onSubmit}>
                  <FormName name='logout' />
                  <Button type='submit' variant='secondary' busy={signOut.busy} disabled={busy} aria-describedby={`${id}-${index}`}>
                    {text('account.sessions.end')}
                  </Button>
                </form>
                )
              : (
                <form method='post' onSubmit={(event) => submit(event, () => endOne.run(entry))}>
                  <FormName name='account-end-session' />
                  <input type='hidden' name='id' value={entry.id} />
                  <Button type='submit' variant='secondary' busy={endOne.running} disabled={busy} aria-describedby={`${id}-${index}`}>
                    {text('account.sessions.end')}
                  </Button>
                </form>
                )}
          </li>
        ))}
      </ul>
      {(sessions === null || list.some((entry) => !entry.current)) && (
        <form method='post' onSubmit={(event) => submit(event, () => endOthers.run(undefined))}>
          <FormName name='account-end-others' />
          <Button type='submit' busy={endOthers.running} disabled={busy}>{text('account.sessions.endOthers')}</Button>
        </form>
      )}
    </AccountSection>
  )
}
