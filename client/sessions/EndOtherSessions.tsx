import { useId } from 'react'
import { Button } from '../components/Button.js'
import { useMessages } from '../languages/messages.js'
import { useEndOtherSessions } from './useEndOtherSessions.js'

/**
 * The offer to sign out of every other session, where the page has just
 * added a way to sign in (OWASP ASVS 7.4.3; docs/account-changes.md): a
 * session someone else holds ends, this one goes on. The confirmation is
 * said politely (role=status), a refusal at once (role=alert); both regions
 * stay in the page so that screen readers notice new text. The button stays:
 * a second press ends whatever signed in meanwhile.
 */
export function EndOtherSessions ({ auth }: { auth: string }) {
  const { text } = useMessages()
  const id = useId()
  const { end, ending, done, error } = useEndOtherSessions(auth)
  // In the step's own form layout (a `.form` column), between its text and its way on.
  return (
    <>
      <p id={`${id}-explanation`}>{text('otherSessions.explanation')}</p>
      <div className={`notice${done === null ? '' : ' notice--success'}`} role='status'>{done}</div>
      <div className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
      <Button variant='secondary' busy={ending} aria-describedby={`${id}-explanation`} onClick={end}>{text('otherSessions.endOthers')}</Button>
    </>
  )
}
