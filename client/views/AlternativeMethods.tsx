import { Button } from '../components/Button.js'

export interface AlternativeMethodsProps {
  readonly verb: 'Login' | 'Sign up'
  readonly showGoogle: boolean
  readonly showSso: boolean
  readonly showDivider: boolean
  readonly googleReady: boolean
  readonly busy: boolean
  readonly onGoogle: () => void
  readonly onSso: () => void
}

/** The 'or' divider, the Google button and the custom SSO button, as login_method allows. */
export function AlternativeMethods (props: AlternativeMethodsProps) {
  if (!props.showGoogle && !props.showSso) return null
  return (
    <>
      {props.showDivider && <div className='divider' role='separator'><span>or</span></div>}
      <div className='methods'>
        {props.showGoogle && (
          <Button variant='secondary' disabled={props.busy || !props.googleReady} onClick={props.onGoogle}>
            {props.verb} with Google
          </Button>
        )}
        {props.showSso && (
          <Button variant='secondary' disabled={props.busy} onClick={props.onSso}>
            {props.verb} with Custom SSO provider
          </Button>
        )}
      </div>
    </>
  )
}
