import { useEffect, useId, useState, type FormEvent } from 'react'
import type { AccountPasskey } from '../../common/account/account-state.js'
import { Button } from '../components/Button.js'
import { TextField } from '../components/TextField.js'
import { useMessages } from '../languages/messages.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import { publicKeyCredential, signal } from '../passkeys/browser-passkeys.js'
import { addPasskey, listPasskeys, removePasskey, renamePasskey } from './account-calls.js'
import { AccountSection, ChangeResult, ProofInPlace } from './AccountSection.js'
import { useAccountTimes } from './account-times.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

interface PasskeysSectionProps {
  readonly session: AccountSession
  /** `passkeys/list`'s entries; null where the edge could not read them. */
  readonly passkeys: readonly AccountPasskey[] | null
  /** The WebAuthn relying party's ID, for the Signal API (PASSKEY_RP_ID); null: the page's host. */
  readonly rpId: string | null
  readonly onChange: (passkeys: readonly AccountPasskey[]) => void
}

/**
 * Tells the visitor's passkey manager which passkeys the account still has
 * (the WebAuthn Signal API, where the browser has it), so that it stops
 * offering one removed elsewhere. It needs the account's user handle, which
 * only a fresh `passkeys/list` carries (`user_id`, as a passkey sign-in's
 * answer names it); without one, nothing is said.
 */
async function signalAccepted (session: AccountSession, rpId: string): Promise<void> {
  if (signalApi().signalAllAcceptedCredentials === undefined) return
  const auth = await session.token()
  const listed = auth === null ? null : await listPasskeys(auth)
  if (listed === null || listed.userId === null) return
  signal(signalApi().signalAllAcceptedCredentials, { rpId, userId: listed.userId, allAcceptedCredentialIds: listed.passkeys.map((passkey) => passkey.id) })
}

/** The Signal API's methods where the browser has WebAuthn at all; none where it has not. */
const signalApi = (): ReturnType<typeof publicKeyCredential> => typeof PublicKeyCredential === 'undefined' ? {} : publicKeyCredential()

/**
 * "Passkeys": each with its name (which the visitor can change), when it
 * was made and last used, and whether it is synced; add one, remove one.
 * Every one of these needs scripts (the browser's passkey prompt, the
 * changes' fresh proof): without them, a note says so in place.
 */
export function PasskeysSection ({ session, passkeys, rpId: configuredRpId, onChange }: PasskeysSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const time = useAccountTimes()
  const [done, setDone] = useState<string | null>(null)
  const [renaming, setRenaming] = useState<string | null>(null)
  const [name, setName] = useState('')
  const list = passkeys ?? []
  const shownName = (passkey: AccountPasskey): string => passkey.name ?? text('account.passkeys.unnamed')
  // The list is the browser's to know too: once, as the view opens (an outside system kept in step, not a render's consequence).
  useEffect(() => { void signalAccepted(session, configuredRpId ?? window.location.hostname) }, []) // eslint-disable-line react-hooks/exhaustive-deps -- once, as the view opens

  const rename = useAccountChange('passkey-rename', session, async (auth, arg: { id: string, name: string }) => await renamePasskey(auth, arg.id, arg.name), (answer, arg) => {
    onChange(list.map((passkey) => passkey.id === arg.id ? { ...passkey, name: arg.name.trim() } : passkey))
    setRenaming(null)
    setDone(text('account.passkeys.renamed', { name: arg.name.trim() }))
  })
  const remove = useAccountChange('passkey-remove', session, async (auth, passkey: AccountPasskey) => await removePasskey(auth, passkey.id), (answer, removed) => {
    onChange(list.filter((passkey) => passkey.id !== removed.id))
    setDone(text('account.passkeys.removed', { name: shownName(removed) }))
    signal(signalApi().signalUnknownCredential, { rpId: configuredRpId ?? window.location.hostname, credentialId: removed.id })
  })
  const add = useAccountChange('passkey-add', session, async (auth) => {
    const outcome = await addPasskey(auth)
    if (outcome.kind !== 'created') return outcome
    const listed = await listPasskeys(auth)
    return { kind: 'created', passkeys: listed?.passkeys ?? null } as const
  }, (answer) => {
    if (answer.kind === 'cancelled') return
    if (answer.passkeys !== null) onChange(answer.passkeys)
    setDone(text('account.passkeys.added'))
  })
  const busy = rename.running || remove.running || add.running
  const proving = [add, rename, remove].find((change) => change.proof.ways !== null)?.proof

  function submitName (event: FormEvent, passkey: AccountPasskey): void {
    event.preventDefault()
    setDone(null)
    if (!busy) rename.run({ id: passkey.id, name })
  }

  return (
    <AccountSection id={id} title={text('account.passkeys.heading')}>
      <p>{text('account.passkeys.explanation')}</p>
      <ChangeResult done={done} error={add.error ?? rename.error ?? remove.error} />
      {passkeys === null && <p>{text('account.listUnavailable')}</p>}
      {passkeys?.length === 0 && <p>{text('account.passkeys.none')}</p>}
      <ProofInPlace proof={proving}>
        <ul className='recent-factors'>
          {list.map((passkey, index) => (
            <li key={passkey.id} aria-labelledby={`${id}-${index}`}>
              <p><strong id={`${id}-${index}`}>{shownName(passkey)}</strong>{passkey.backedUp && <> · {text('account.passkeys.synced')}</>}</p>
              <p>{text('account.passkeys.created', { time: time(passkey.createdAt) })}</p>
              <p>{passkey.lastUsedAt === null ? text('account.passkeys.neverUsed') : text('account.sessions.lastUsed', { time: time(passkey.lastUsedAt) })}</p>
              <NeedsScript>
                {renaming === passkey.id
                  ? (
                    <form className='form' noValidate onSubmit={(event) => submitName(event, passkey)}>
                      <TextField label={text('account.passkeys.nameLabel')} value={name} onChange={setName} width='full' autoFocus />
                      <Button type='submit' busy={rename.running}>{text('account.passkeys.save')}</Button>
                      <Button variant='text' disabled={rename.running} onClick={() => setRenaming(null)}>{text('account.cancel')}</Button>
                    </form>
                    )
                  : (
                    <>
                      <Button variant='secondary' disabled={busy} aria-describedby={`${id}-${index}`} onClick={() => { setName(passkey.name ?? ''); setRenaming(passkey.id) }}>
                        {text('account.passkeys.rename')}
                      </Button>
                      <Button variant='secondary' busy={remove.running} disabled={busy} aria-describedby={`${id}-${index}`} onClick={() => { setDone(null); remove.run(passkey) }}>
                        {text('account.passkeys.remove')}
                      </Button>
                    </>
                    )}
              </NeedsScript>
            </li>
          ))}
        </ul>
        <NeedsScript fallback={() => <p className='script-note'>{text('account.needsScript')}</p>}>
          <Button busy={add.running} disabled={busy} onClick={() => { setDone(null); add.run(undefined) }}>{text('account.passkeys.add')}</Button>
        </NeedsScript>
      </ProofInPlace>
    </AccountSection>
  )
}
