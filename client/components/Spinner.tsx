import { SPINNER_SIZE_PX } from '../lib/constants.js'

/** A spinner making one turn per second (24 px unless told); hidden from assistive technology. */
export function Spinner ({ size = SPINNER_SIZE_PX, label }: { size?: number, label?: string }) {
  return (
    <span
      className='spinner'
      role={label === undefined ? undefined : 'status'}
      aria-label={label}
      aria-hidden={label === undefined ? true : undefined}
      style={{ width: size, height: size }}
    />
  )
}
