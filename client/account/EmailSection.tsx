import { useId, useState, type FormEvent } from 'react'
import { Button } from '../components/Button.js'
import { FormName } from '../components/FormName.js'
import { TextField } from '../components/TextField.js'
import { useMessages } from '../languages/messages.js'
import { changeEmail } from './account-calls.js'
import { AccountSection, ChangeResult, CurrentPasswordField, ProofInPlace } from './AccountSection.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

interface EmailSectionProps {
  readonly session: AccountSession
  readonly email: string
  readonly emailVerified: boolean
  /** The account has a password, which a form posted without scripts proves the account with. */
  readonly hasPassword: boolean
}

/**
 * "Email address": the address, and a change to another, which a link to
 * the new address confirms (the old one is told, with a "this wasn't me"
 * link): until then the account keeps its address. Posted without scripts
 * as `account-email`; with scripts, `email/change`, the proof asked in place.
 */
export function EmailSection ({ session, email, emailVerified, hasPassword }: EmailSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const [newEmail, setNewEmail] = useState('')
  const [done, setDone] = useState<string | null>(null)
  const change = useAccountChange('email', session, async (auth, address: string) => await changeEmail(auth, address), (answer, address) => {
    setNewEmail('')
    setDone(text('account.email.sent', { email: address }))
  })

  function submit (event: FormEvent): void {
    event.preventDefault()
    setDone(null)
    if (!change.running) change.run(newEmail.trim())
  }

  return (
    <AccountSection id={id} title={text('account.email.heading')}>
      <p>{text('account.email.current', { email })}{emailVerified ? null : <> {text('account.email.unverified')}</>}</p>
      <ChangeResult done={done} error={change.error} />
      <ProofInPlace proof={change.proof}>
        <form method='post' className='form' noValidate onSubmit={submit}>
          <FormName name='account-email' />
          <TextField label={text('account.email.new')} type='email' name='newEmail' autoComplete='email' width='full' spellCheck={false}
            value={newEmail} onChange={setNewEmail} invalid={change.error !== null} />
          {hasPassword && <CurrentPasswordField label={text('account.password.current')} />}
          <Button type='submit' busy={change.running}>{text('account.email.submit')}</Button>
        </form>
      </ProofInPlace>
    </AccountSection>
  )
}
